/* profile.c: the profile string ("key=value,key=value"), the environment variables
 * that stand in for profile keys, and the emulated system's size. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host.h"

#define DEFAULT_NR_RANKS 40u

/* Why the last profile of this thread was refused, naming the setting, the value and what
 * is accepted: dpu_emu_profile_error() gives it to pyupmem, stderr to C host programs. */
static __thread char last_error[768];
static _Atomic bool report_to_stderr = true;

/* Where a key's value came from: an environment variable, or a profile key. */
struct setting {
    const char *variable; /* NULL for the profile string */
    const char *key;
};

static dpu_error_t refuse(const struct setting *setting, const char *value, const char *accepted)
{
    if (setting->variable != NULL)
        snprintf(last_error, sizeof(last_error), "%s=%s (profile key %s): expected %s",
                 setting->variable, value, setting->key, accepted);
    else
        snprintf(last_error, sizeof(last_error), "profile key %s=%s: expected %s", setting->key,
                 value, accepted);
    return DPU_ERR_INVALID_PROFILE;
}

static dpu_error_t parse_uint(const struct setting *setting, const char *value, uint32_t min,
                              uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long parsed = strtoul(value, &end, 10);
    if (*value == '\0' || *value == '-' || *value == '+' || *end != '\0' || parsed < min ||
        parsed > max) {
        char accepted[96];
        snprintf(accepted, sizeof(accepted), "a whole number from %u to %u", min, max);
        return refuse(setting, value, accepted);
    }
    *out = (uint32_t)parsed;
    return DPU_OK;
}

static dpu_error_t parse_bool(const struct setting *setting, const char *value, bool *out)
{
    if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0 || strcmp(value, "yes") == 0)
        *out = true;
    else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0 || strcmp(value, "no") == 0)
        *out = false;
    else
        return refuse(setting, value, "1, true or yes; 0, false or no");
    return DPU_OK;
}

/* "roundrobin" (the default), or "shuffle:SEED" to vary the interleaving (finds races). */
static dpu_error_t parse_schedule(const struct setting *setting, const char *value,
                                  struct emu_profile *profile)
{
    static const char accepted[] = "roundrobin (or default), or shuffle:SEED with SEED a whole "
                                   "number (shuffle:1)";
    if (strcmp(value, "roundrobin") == 0 || strcmp(value, "default") == 0) {
        profile->shuffle = false;
        return DPU_OK;
    }
    if (strncmp(value, "shuffle:", 8) != 0 || value[8] < '0' || value[8] > '9')
        return refuse(setting, value, accepted);
    char *end;
    unsigned long long seed = strtoull(value + 8, &end, 10);
    if (*end != '\0')
        return refuse(setting, value, accepted);
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

static dpu_error_t parse_chip(const struct setting *setting, const char *value,
                              struct emu_profile *profile)
{
    for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
        if (strcasecmp(value, chips[i].name) == 0) {
            profile->chip = &chips[i];
            return DPU_OK;
        }
    return refuse(setting, value, "v1A or v1B");
}

/* The keys UPMEM's SDK documents for hardware, its simulator and its other backends: a
 * profile written for them runs here unchanged, the emulator having no use for them. */
static const char *const sdk_keys[] = {
    "chipId", "clockDivision", "fckFrequency", "enableProfiling", "profilingDpuId",
    "profilingSliceId", "mcountAddress", "retMcountAddress", "threadProfilingAddress",
    "mramAccessByDpuOnly", "disabledMask", "disableSafeChecks", "disableMuxSwitch",
    "disableResetOnAlloc", "cmdsBufferSize", "dispatchOnAllRanks", "nrThreadsPerRank",
    "nrJobsPerRank", "nrDpusPerCi", "nrDpusPerCI", "iramSize", "mramSize", "wramSize",
    "hasDbgMram", "simulateCycleAccuracy", "pipelineDepth", "doProfiling",
    "profileInstruction", "profileDma", "profileMemory", "profileIla", "modelsimMramFile",
    "modelsimWorkDir", "modelsimExecPath", "modelsimTclScript", "modelsimEnableGui",
    "modelsimBypassMramSwitch", "reportFileName", "analyzerEnabled",
    "analyzerFilteringEnabled", "mramBypassEnabled", "mramEmulateRefresh", "cycleAccurate",
    "regionMode", "rankPath", "ignoreVersion", "tryRepairIram", "tryRepairWram", "ignoreVpd",
    "nrThreadPerPool", "poolThreshold1Thread", "poolThreshold2Threads",
    "poolThreshold4Threads", "usbSerial", "chipSelect",
};

static bool is_sdk_key(const char *key)
{
    for (size_t i = 0; i < sizeof(sdk_keys) / sizeof(sdk_keys[0]); i++)
        if (strcmp(key, sdk_keys[i]) == 0)
            return true;
    return false;
}

static dpu_error_t apply_key(const char *variable, const char *key, const char *value,
                             struct emu_profile *profile)
{
    const struct setting setting = {variable, key};
    if (strcmp(key, "nrRanks") == 0)
        return parse_uint(&setting, value, 1, 4096, &profile->nr_ranks);
    if (strcmp(key, "backend") == 0) {
        /* Scripts written for hardware or the SDK's simulator run unchanged. */
        if (strcmp(value, "hw") != 0 && strcmp(value, "simulator") != 0 &&
            strcmp(value, "emulator") != 0)
            return refuse(&setting, value, "hw, simulator or emulator");
        return DPU_OK;
    }
    if (strcmp(key, "sgXferEnable") == 0)
        return parse_bool(&setting, value, &profile->sg_enable);
    if (strcmp(key, "sgXferMaxBlocksPerDpu") == 0)
        return parse_uint(&setting, value, 1, UINT32_MAX, &profile->sg_max_blocks);
    if (strcmp(key, "emuStrict") == 0)
        return parse_bool(&setting, value, &profile->strict);
    if (strcmp(key, "emuSchedule") == 0)
        return parse_schedule(&setting, value, profile);
    if (strcmp(key, "emuPrintFaults") == 0)
        return parse_bool(&setting, value, &profile->print_faults);
    if (strcmp(key, "clockMHz") == 0)
        return parse_uint(&setting, value, 1, 100000, &profile->explicit_clock_mhz);
    if (strcmp(key, "chipVersion") == 0)
        return parse_chip(&setting, value, profile);
    if (is_sdk_key(key))
        return DPU_OK;
    snprintf(last_error, sizeof(last_error),
             "profile key %s (in %s=%s) is unknown: the emulator's keys are nrRanks, "
             "backend, chipVersion, clockMHz, emuStrict, emuSchedule, emuPrintFaults, "
             "sgXferEnable and sgXferMaxBlocksPerDpu, and it accepts (and ignores) the keys "
             "UPMEM's SDK documents for hardware and its simulator (chipId, regionMode, "
             "nrThreadsPerRank, ...); check the spelling",
             key, key, value);
    return DPU_ERR_INVALID_PROFILE;
}

/* Applies one profile string; later keys win. `origin` names it in a message. */
static dpu_error_t apply(const char *text, const char *origin, struct emu_profile *profile)
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
        while (*token == ' ')
            token++; /* "a=1, b=2", as the SDK's own examples write them */
        char *equal = strchr(token, '=');
        if (equal == NULL || equal == token) {
            snprintf(last_error, sizeof(last_error),
                     "%s %s: '%s' is not key=value (pairs are separated by commas)", origin,
                     text, token);
            status = DPU_ERR_INVALID_PROFILE;
            break;
        }
        *equal = '\0';
        status = apply_key(NULL, token, equal + 1, profile);
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
    return apply_key(variable, key, value, profile);
}

const char *dpu_emu_profile_error(void)
{
    return last_error;
}

void dpu_emu_report_profile_errors(bool to_stderr)
{
    report_to_stderr = to_stderr;
}

uint32_t emu_system_nr_ranks(void)
{
    uint32_t nr_ranks = DEFAULT_NR_RANKS;
    const char *env = getenv("PYUPMEM_EMU_NR_RANKS");
    const struct setting setting = {"PYUPMEM_EMU_NR_RANKS", "nrRanks"};
    if (env != NULL && *env != '\0')
        parse_uint(&setting, env, 1, 4096, &nr_ranks);
    return nr_ranks;
}

dpu_error_t emu_parse_profile(const char *text, struct emu_profile *profile)
{
    memset(profile, 0, sizeof(*profile));
    last_error[0] = '\0';
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
        status = apply(getenv("UPMEM_PROFILE_BASE"), "UPMEM_PROFILE_BASE", profile);
    if (status == DPU_OK)
        status = apply(text, "the profile", profile);
    if (status == DPU_OK)
        status = apply(getenv("UPMEM_PROFILE"), "UPMEM_PROFILE", profile);
    if (status == DPU_ERR_INVALID_PROFILE && report_to_stderr && last_error[0] != '\0')
        fprintf(stderr, "libdpu (pyupmem emulator): invalid profile: %s\n", last_error);
    profile->clock_mhz = profile->explicit_clock_mhz ? profile->explicit_clock_mhz : profile->chip->clock_mhz;
    return status;
}
