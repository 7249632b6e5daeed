/* profile.c: the profile string ("key=value,key=value"), the environment variables
 * that stand in for profile keys, and the emulated system's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host.h"

#define DEFAULT_NR_RANKS 40u

static dpu_error_t parse_uint(const char *value, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long parsed = strtoul(value, &end, 10);
    if (*value == '\0' || *end != '\0' || parsed < min || parsed > max)
        return DPU_ERR_INVALID_PROFILE;
    *out = (uint32_t)parsed;
    return DPU_OK;
}

static dpu_error_t parse_bool(const char *value, bool *out)
{
    if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0 || strcmp(value, "yes") == 0)
        *out = true;
    else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0 || strcmp(value, "no") == 0)
        *out = false;
    else
        return DPU_ERR_INVALID_PROFILE;
    return DPU_OK;
}

/* "roundrobin" (the default), or "shuffle:SEED" to vary the interleaving (finds races). */
static dpu_error_t parse_schedule(const char *value, struct emu_profile *profile)
{
    if (strcmp(value, "roundrobin") == 0 || strcmp(value, "default") == 0) {
        profile->shuffle = false;
        return DPU_OK;
    }
    if (strncmp(value, "shuffle:", 8) != 0 || value[8] == '\0')
        return DPU_ERR_INVALID_PROFILE;
    char *end;
    unsigned long long seed = strtoull(value + 8, &end, 10);
    if (*end != '\0')
        return DPU_ERR_INVALID_PROFILE;
    profile->shuffle = true;
    profile->shuffle_seed = seed;
    return DPU_OK;
}

/* v1A: 350 MHz, 24 threads, 64 KiB of WRAM, 4,096 instructions of IRAM; v1B: 400 MHz, 16
 * threads, 63,488 B, 3,968 instructions. MRAM is 64 MiB on both. */
static const struct emu_chip chips[] = {
    {"v1A", 350, 24, 65536, 4096},
    {"v1B", 400, 16, 63488, 3968},
};

static dpu_error_t parse_chip(const char *value, struct emu_profile *profile)
{
    for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
        if (strcasecmp(value, chips[i].name) == 0) {
            profile->chip = &chips[i];
            return DPU_OK;
        }
    return DPU_ERR_INVALID_PROFILE;
}

static dpu_error_t apply_key(const char *key, const char *value, struct emu_profile *profile)
{
    if (strcmp(key, "nrRanks") == 0)
        return parse_uint(value, 1, 4096, &profile->nr_ranks);
    if (strcmp(key, "backend") == 0) {
        /* Scripts written for hardware or the SDK's simulator run unchanged. */
        if (strcmp(value, "hw") != 0 && strcmp(value, "simulator") != 0 &&
            strcmp(value, "emulator") != 0)
            return DPU_ERR_INVALID_PROFILE;
        return DPU_OK;
    }
    if (strcmp(key, "sgXferEnable") == 0)
        return parse_bool(value, &profile->sg_enable);
    if (strcmp(key, "sgXferMaxBlocksPerDpu") == 0)
        return parse_uint(value, 1, UINT32_MAX, &profile->sg_max_blocks);
    if (strcmp(key, "emuStrict") == 0)
        return parse_bool(value, &profile->strict);
    if (strcmp(key, "emuSchedule") == 0)
        return parse_schedule(value, profile);
    if (strcmp(key, "emuPrintFaults") == 0)
        return parse_bool(value, &profile->print_faults);
    if (strcmp(key, "clockMHz") == 0)
        return parse_uint(value, 1, 100000, &profile->explicit_clock_mhz);
    if (strcmp(key, "chipVersion") == 0)
        return parse_chip(value, profile);
    return DPU_OK; /* a profile written for hardware carries keys the emulator has no use for */
}

/* Applies one profile string; later keys win. */
static dpu_error_t apply(const char *text, struct emu_profile *profile)
{
    if (text == NULL || *text == '\0')
        return DPU_OK;
    char *copy = strdup(text);
    if (copy == NULL)
        return DPU_ERR_SYSTEM;
    dpu_error_t status = DPU_OK;
    char *saveptr = NULL;
    for (char *token = strtok_r(copy, ",", &saveptr); token != NULL && status == DPU_OK;
         token = strtok_r(NULL, ",", &saveptr)) {
        char *equal = strchr(token, '=');
        if (equal == NULL || equal == token) {
            status = DPU_ERR_INVALID_PROFILE;
            break;
        }
        *equal = '\0';
        status = apply_key(token, equal + 1, profile);
    }
    free(copy);
    return status;
}

/* An environment variable that stands in for a profile key; a bad value is an error. */
static dpu_error_t apply_env(const char *variable, const char *key, struct emu_profile *profile)
{
    const char *value = getenv(variable);
    if (value == NULL || *value == '\0')
        return DPU_OK;
    return apply_key(key, value, profile);
}

uint32_t emu_system_nr_ranks(void)
{
    uint32_t nr_ranks = DEFAULT_NR_RANKS;
    const char *env = getenv("PYUPMEM_EMU_NR_RANKS");
    if (env != NULL && *env != '\0')
        parse_uint(env, 1, 4096, &nr_ranks);
    return nr_ranks;
}

dpu_error_t emu_parse_profile(const char *text, struct emu_profile *profile)
{
    memset(profile, 0, sizeof(*profile));
    profile->nr_ranks = DEFAULT_NR_RANKS;
    profile->sg_max_blocks = UINT32_MAX;
    profile->chip = &chips[0];
    profile->print_faults = true;
    /* The environment first, so that a program's own profile string overrides it. */
    dpu_error_t status = apply_env("PYUPMEM_EMU_NR_RANKS", "nrRanks", profile);
    if (status == DPU_OK)
        status = apply_env("PYUPMEM_EMU_STRICT", "emuStrict", profile);
    if (status == DPU_OK)
        status = apply_env("PYUPMEM_EMU_SCHEDULE", "emuSchedule", profile);
    if (status == DPU_OK)
        status = apply(getenv("UPMEM_PROFILE_BASE"), profile);
    if (status == DPU_OK)
        status = apply(text, profile);
    if (status == DPU_OK)
        status = apply(getenv("UPMEM_PROFILE"), profile);
    profile->clock_mhz = profile->explicit_clock_mhz ? profile->explicit_clock_mhz : profile->chip->clock_mhz;
    return status;
}
