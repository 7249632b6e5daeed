/* dpu_probe.h: the energy probes of older SDKs (PrIM's host programs use them under
 * ENERGY=1): dpu_probe_start and dpu_probe_stop bracket a measured interval, dpu_probe_get
 * reads the accumulated, average, smallest or largest value over the intervals so far.
 *
 * The emulator measures time only, as host wall-clock seconds between start and stop.
 * Energy is not measured: dpu_probe_get(..., DPU_ENERGY, ..., &value) returns DPU_OK and
 * sets value to 0.0, so that programs that DPU_ASSERT the call run unchanged; read 0 J as
 * "not measured". dpu_probe_stop without a start, or an unknown option or statistic, gives
 * DPU_ERR_INTERNAL. */
#ifndef DPU_PROBE_H
#define DPU_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu_error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum _dpu_probe_option_t {
    DPU_ENERGY = 0, /* joules: not measured by the emulator (always 0.0) */
    DPU_TIME = 1,   /* seconds */
} dpu_probe_option_t;

typedef enum _dpu_probe_statistic_t {
    DPU_AVERAGE = 0,    /* mean over the completed intervals (0.0 before any) */
    DPU_ACCUMULATE = 1, /* sum over the completed intervals */
    DPU_MIN = 2,        /* shortest interval */
    DPU_MAX = 3,        /* longest interval */
} dpu_probe_statistic_t;

struct dpu_probe_t {
    char name[64];
    bool running;
    uint64_t started_ns;
    uint64_t nr_intervals;
    uint64_t total_ns;
    uint64_t min_ns;
    uint64_t max_ns;
};
typedef struct dpu_probe_t dpu_probe_t;

dpu_error_t dpu_probe_init(const char *probe_name, struct dpu_probe_t *probe);
dpu_error_t dpu_probe_deinit(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_start(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_stop(struct dpu_probe_t *probe);
dpu_error_t dpu_probe_get(struct dpu_probe_t *probe, dpu_probe_option_t option,
                          dpu_probe_statistic_t statistic, double *value);

#ifdef __cplusplus
}
#endif
#endif /* DPU_PROBE_H */
