/* dpu_target.h: the kinds of libdpu backend. The emulator reports itself as a functional
 * simulator (its ranks have no hardware behind them). */
#ifndef __DPU_TARGET_H
#define __DPU_TARGET_H

#include <stdbool.h>
#include <string.h>

#define __MAYBE_UNUSED__ __attribute__((unused))

typedef enum _dpu_type_t {
    FUNCTIONAL_SIMULATOR = 0,
    CYCLE_ACCURATE_SIMULATOR = 1,
    RTL_SIMULATOR = 2,
    HW = 3,
    BACKUP_SPI = 4,
    SCENARIO = 5,
    NB_OF_DPU_TYPES = 6
} dpu_type_t;

__MAYBE_UNUSED__ static inline const char *dpu_type_to_string(dpu_type_t dpu_type)
{
    static const char *const names[NB_OF_DPU_TYPES] = {
        "FUNCTIONAL_SIMULATOR", "CYCLE_ACCURATE_SIMULATOR", "RTL_SIMULATOR",
        "HW",                   "BACKUP_SPI",               "SCENARIO",
    };
    return (unsigned)dpu_type < NB_OF_DPU_TYPES ? names[dpu_type] : "UNKNOWN";
}

/* The backend=... value of a profile, as a dpu_type_t; false when it names none. */
__MAYBE_UNUSED__ static inline bool dpu_type_from_profile_string(const char *string,
                                                                 dpu_type_t *dpu_type)
{
    static const struct {
        const char *key;
        dpu_type_t type;
    } keys[] = {
        {"simulator", FUNCTIONAL_SIMULATOR}, {"cas", CYCLE_ACCURATE_SIMULATOR},
        {"model", RTL_SIMULATOR},            {"hw", HW},
        {"spi", BACKUP_SPI},                 {"scenario", SCENARIO},
    };
    for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(string, keys[i].key) == 0) {
            *dpu_type = keys[i].type;
            return true;
        }
    }
    return false;
}

#endif /* __DPU_TARGET_H */
