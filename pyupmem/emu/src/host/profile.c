/* profile.c: the profile string ("key=value,key=value") and the emulated system's size. */
#include <stdlib.h>
#include <string.h>

#include "host.h"

#define DEFAULT_NR_RANKS 40u

static dpu_error_t parse_ranks(const char *value, uint32_t *nr_ranks)
{
    char *end;
    unsigned long parsed = strtoul(value, &end, 10);
    if (*value == '\0' || *end != '\0' || parsed == 0 || parsed > 4096)
        return DPU_ERR_INVALID_PROFILE;
    *nr_ranks = (uint32_t)parsed;
    return DPU_OK;
}

/* Applies one profile string; later keys win. Unknown keys are ignored, as a
 * profile written for hardware carries keys the emulator has no use for. */
static dpu_error_t apply(const char *profile, uint32_t *nr_ranks)
{
    if (profile == NULL || *profile == '\0')
        return DPU_OK;
    char *copy = strdup(profile);
    dpu_error_t status = DPU_OK;
    char *saveptr = NULL;
    for (char *token = strtok_r(copy, ",", &saveptr); token != NULL;
         token = strtok_r(NULL, ",", &saveptr)) {
        char *equal = strchr(token, '=');
        if (equal == NULL || equal == token) {
            status = DPU_ERR_INVALID_PROFILE;
            break;
        }
        *equal = '\0';
        const char *key = token, *value = equal + 1;
        if (strcmp(key, "nrRanks") == 0) {
            status = parse_ranks(value, nr_ranks);
        } else if (strcmp(key, "backend") == 0) {
            /* Scripts written for hardware or the SDK's simulator run unchanged. */
            if (strcmp(value, "hw") != 0 && strcmp(value, "simulator") != 0 &&
                strcmp(value, "emulator") != 0)
                status = DPU_ERR_INVALID_PROFILE;
        }
        if (status != DPU_OK)
            break;
    }
    free(copy);
    return status;
}

uint32_t emu_system_nr_ranks(void)
{
    uint32_t nr_ranks = DEFAULT_NR_RANKS;
    const char *env = getenv("PYUPMEM_EMU_NR_RANKS");
    if (env != NULL && *env != '\0')
        parse_ranks(env, &nr_ranks);
    return nr_ranks;
}

dpu_error_t emu_parse_profile(const char *profile, uint32_t *nr_ranks)
{
    *nr_ranks = emu_system_nr_ranks();
    const char *env = getenv("PYUPMEM_EMU_NR_RANKS");
    if (env != NULL && *env != '\0' && parse_ranks(env, nr_ranks) != DPU_OK)
        return DPU_ERR_INVALID_PROFILE;
    dpu_error_t status = apply(getenv("UPMEM_PROFILE_BASE"), nr_ranks);
    if (status == DPU_OK)
        status = apply(profile, nr_ranks);
    if (status == DPU_OK)
        status = apply(getenv("UPMEM_PROFILE"), nr_ranks);
    return status;
}
