/* probe.c: the energy probes of dpu_probe.h. They time host wall-clock intervals; energy
 * is not measured and reads as 0.0 (see dpu_probe.h). */
#include <string.h>
#include <time.h>

#include "host.h"
#include <dpu_probe.h>

static uint64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

dpu_error_t dpu_probe_init(const char *probe_name, struct dpu_probe_t *probe)
{
    if (probe == NULL)
        return DPU_ERR_INTERNAL;
    memset(probe, 0, sizeof(*probe));
    if (probe_name != NULL)
        strncpy(probe->name, probe_name, sizeof(probe->name) - 1);
    return DPU_OK;
}

dpu_error_t dpu_probe_deinit(struct dpu_probe_t *probe)
{
    return probe == NULL ? DPU_ERR_INTERNAL : DPU_OK;
}

dpu_error_t dpu_probe_start(struct dpu_probe_t *probe)
{
    if (probe == NULL)
        return DPU_ERR_INTERNAL;
    probe->running = true;
    probe->started_ns = now_ns();
    return DPU_OK;
}

dpu_error_t dpu_probe_stop(struct dpu_probe_t *probe)
{
    uint64_t end = now_ns();
    if (probe == NULL || !probe->running)
        return DPU_ERR_INTERNAL;
    uint64_t interval = end - probe->started_ns;
    probe->running = false;
    if (probe->nr_intervals == 0 || interval < probe->min_ns)
        probe->min_ns = interval;
    if (interval > probe->max_ns)
        probe->max_ns = interval;
    probe->total_ns += interval;
    probe->nr_intervals++;
    return DPU_OK;
}

dpu_error_t dpu_probe_get(struct dpu_probe_t *probe, dpu_probe_option_t option,
                          dpu_probe_statistic_t statistic, double *value)
{
    if (probe == NULL || value == NULL || (option != DPU_ENERGY && option != DPU_TIME))
        return DPU_ERR_INTERNAL;
    uint64_t ns;
    switch (statistic) {
    case DPU_AVERAGE:
        ns = probe->nr_intervals ? probe->total_ns / probe->nr_intervals : 0;
        break;
    case DPU_ACCUMULATE:
        ns = probe->total_ns;
        break;
    case DPU_MIN:
        ns = probe->min_ns;
        break;
    case DPU_MAX:
        ns = probe->max_ns;
        break;
    default:
        return DPU_ERR_INTERNAL;
    }
    *value = option == DPU_ENERGY ? 0.0 : (double)ns / 1e9;
    return DPU_OK;
}
