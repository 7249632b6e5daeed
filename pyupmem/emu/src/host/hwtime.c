/* hwtime.c: how long a host program's libdpu calls would take on hardware, by phase.
 *
 * Every transfer and every launch adds its emulated (wall) time and its estimated
 * hardware time to its allocation's phase totals and to the process's, which
 * PYUPMEM_EMU_TIMING=1 prints at exit. The phases are PrIM's: CPU-DPU, DPU kernel,
 * Inter-DPU (host work between a launch's end and the next launch, transfers left out:
 * it runs on the same CPU, so its estimate is its wall time) and DPU-CPU.
 *
 * The constants and their sources (docs/explanation/timing.md has the full list):
 * - host transfers within one rank of 64 DPUs (PrIM characterisation, Gomez-Luna et al.,
 *   IEEE Access 2022): CPU->DPU 0.33 GB/s to one DPU, 6.68 GB/s in parallel to 64,
 *   16.88 GB/s broadcast; DPU->CPU 0.12 and 4.74 GB/s. A rank's parallel bandwidth grows
 *   with the DPUs of it that take part (the host's cache lines are spread over the
 *   rank's chips): 1.6 GB/s to 4 DPUs on hardware. Between 1, 4 and 64 DPUs the rate is
 *   interpolated on log-log axes, in both directions by the same shape;
 * - every transfer call costs a fixed 0.1 ms on hardware even for a few bytes (set from
 *   hardware measurements of PrIM workloads); each further rank adds 12 us to the DPUs and
 *   25 us from them, and all ranks together move at most 22.6 and 11.0 GB/s (SDK 2023.2
 *   measured on 32 ranks, upmem-sdk-light's results). A copy to or from one DPU (serial)
 *   runs at the single-DPU rate, which matched hardware within 10-13%;
 * - a launch costs 79 us plus 21 us per control interface (8 DPUs) of its busiest rank,
 *   ranks in parallel: booting the DPUs and polling them until they finish, one query per
 *   control interface; 0.1 ms for one DPU, 0.25 ms for a rank of 64, the range measured
 *   on hardware. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

#define GB 1e9
static const double TO_ONE = 0.33 * GB, TO_RANK = 6.68 * GB, TO_FOUR = 1.6 * GB;
static const double FROM_ONE = 0.12 * GB, FROM_RANK = 4.74 * GB;
static const double BROADCAST_RANK = 16.88 * GB;
static const double HOST_TO = 22.6 * GB, HOST_FROM = 11.0 * GB;
static const double CALL_SECONDS = 100e-6;
static const double RANK_TO_SECONDS = 12e-6, RANK_FROM_SECONDS = 25e-6;
static const double LAUNCH_SECONDS = 79e-6, LAUNCH_CI_SECONDS = 21e-6;

const char *const emu_phase_names[EMU_PHASES] = {"CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU"};

static struct emu_phase_times process_times;
static bool summary_registered;

double emu_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

/* How far a rank's parallel bandwidth has grown from one DPU (0) to all 64 (1), on log
 * axes, with the same shape for every kind of transfer (the 4-DPU point of CPU->DPU). */
static double rank_share(uint32_t dpus)
{
    double four = log(TO_FOUR / TO_ONE) / log(TO_RANK / TO_ONE);
    double x = log2(dpus < 1 ? 1 : dpus > EMU_DPUS_PER_RANK ? EMU_DPUS_PER_RANK : dpus);
    return x <= 2 ? four * x / 2 : four + (1 - four) * (x - 2) / 4;
}

static double rank_rate(double one, double rank, uint32_t dpus)
{
    return one * pow(rank / one, rank_share(dpus));
}

double emu_transfer_seconds(enum emu_transfer kind, uint64_t bytes_per_dpu, uint32_t dpus_per_rank,
                            uint32_t nr_ranks)
{
    double bytes = (double)bytes_per_dpu, dpus = (double)dpus_per_rank;
    double extra_ranks = nr_ranks > 1 ? nr_ranks - 1 : 0;
    switch (kind) {
    case EMU_XFER_SERIAL_TO: return CALL_SECONDS + bytes / TO_ONE;
    case EMU_XFER_SERIAL_FROM: return CALL_SECONDS + bytes / FROM_ONE;
    case EMU_XFER_PARALLEL_TO: {
        double rank = dpus * bytes / rank_rate(TO_ONE, TO_RANK, dpus_per_rank);
        double host = dpus * nr_ranks * bytes / HOST_TO;
        return CALL_SECONDS + extra_ranks * RANK_TO_SECONDS + fmax(rank, host);
    }
    case EMU_XFER_BROADCAST: {
        double rank = dpus * bytes / rank_rate(TO_ONE, BROADCAST_RANK, dpus_per_rank);
        return CALL_SECONDS + extra_ranks * RANK_TO_SECONDS + rank;
    }
    case EMU_XFER_PARALLEL_FROM: {
        double rank = dpus * bytes / rank_rate(FROM_ONE, FROM_RANK, dpus_per_rank);
        double host = dpus * nr_ranks * bytes / HOST_FROM;
        return CALL_SECONDS + extra_ranks * RANK_FROM_SECONDS + fmax(rank, host);
    }
    }
    return 0;
}

double emu_launch_overhead_seconds(uint32_t dpus_per_rank)
{
    uint32_t interfaces = (dpus_per_rank + 7) / 8;
    return LAUNCH_SECONDS + LAUNCH_CI_SECONDS * (interfaces ? interfaces : 1);
}

/* The busiest rank's DPUs among those of the range that `takes_part` selects, and the
 * ranks involved. */
static void shape(struct emu_range range, bool (*takes_part)(const struct dpu_t *), uint32_t *per_rank,
                  uint32_t *nr_ranks, uint32_t *nr_dpus)
{
    *per_rank = *nr_ranks = *nr_dpus = 0;
    const struct dpu_rank_t *rank = NULL;
    uint32_t in_rank = 0;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        const struct dpu_t *dpu = &range.allocation->dpus[i];
        if (takes_part != NULL && !takes_part(dpu))
            continue;
        if (dpu->rank != rank) {
            rank = dpu->rank;
            in_rank = 0;
            (*nr_ranks)++;
        }
        (*nr_dpus)++;
        if (++in_rank > *per_rank)
            *per_rank = in_rank;
    }
}

static void print_summary(void)
{
    const char *wanted = getenv("PYUPMEM_EMU_TIMING");
    if (wanted == NULL || *wanted == '\0' || strcmp(wanted, "0") == 0)
        return;
    double emulated = 0, estimated = 0;
    for (int p = 0; p < EMU_PHASES; p++) {
        emulated += process_times.emulated_s[p];
        estimated += process_times.estimated_s[p];
    }
    if (emulated == 0 && estimated == 0)
        return;
    fprintf(stderr, "pyupmem emulator: time by phase, emulated here and modelled for hardware\n");
    fprintf(stderr, "  %-12s %12s %14s %8s\n", "phase", "emulated ms", "hardware ms", "calls");
    for (int p = 0; p < EMU_PHASES; p++)
        fprintf(stderr, "  %-12s %12.3f %14.3f %8llu\n", emu_phase_names[p],
                process_times.emulated_s[p] * 1e3, process_times.estimated_s[p] * 1e3,
                (unsigned long long)process_times.calls[p]);
    fprintf(stderr, "  %-12s %12.3f %14.3f\n", "total", emulated * 1e3, estimated * 1e3);
}

static void add(struct emu_allocation *allocation, enum emu_phase phase, double emulated_s,
                double estimated_s)
{
    if (!summary_registered) {
        summary_registered = true;
        atexit(print_summary);
    }
    struct emu_phase_times *totals[2] = {&allocation->times, &process_times};
    for (int t = 0; t < 2; t++) {
        totals[t]->emulated_s[phase] += emulated_s;
        totals[t]->estimated_s[phase] += estimated_s;
        totals[t]->calls[phase]++;
    }
}

static bool has_buffer(const struct dpu_t *dpu)
{
    return dpu->xfer_buffer != NULL;
}

void emu_account_transfer(struct emu_range range, enum emu_transfer kind, uint64_t bytes_per_dpu,
                          bool prepared_only, double started_ns)
{
    uint32_t per_rank, nr_ranks, nr_dpus;
    shape(range, prepared_only ? has_buffer : NULL, &per_rank, &nr_ranks, &nr_dpus);
    if (nr_dpus == 0)
        return;
    bool to_dpus = kind != EMU_XFER_PARALLEL_FROM && kind != EMU_XFER_SERIAL_FROM;
    double wall = (emu_now_ns() - started_ns) / 1e9;
    add(range.allocation, to_dpus ? EMU_PHASE_CPU_DPU : EMU_PHASE_DPU_CPU, wall,
        emu_transfer_seconds(kind, bytes_per_dpu, per_rank, nr_ranks));
    range.allocation->transfer_ns_since_kernel += wall * 1e9;
}

void emu_account_launch_start(struct emu_range range)
{
    struct emu_allocation *allocation = range.allocation;
    double now = emu_now_ns();
    if (allocation->kernel_ended_ns > 0) {
        /* Host work since the last launch ended, transfers left out. */
        double host = (now - allocation->kernel_ended_ns - allocation->transfer_ns_since_kernel) / 1e9;
        if (host > 0)
            add(allocation, EMU_PHASE_INTER_DPU, host, host);
    }
    allocation->launched_ns = now;
    allocation->launched = range;
    allocation->launch_unreported = true;
}

double emu_kernel_estimate_seconds(struct emu_range range, uint64_t *cycles_out, bool *counted_out)
{
    uint64_t cycles = 0;
    bool counted = true;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        const struct emu_slot *slot = emu_slot(range.allocation, i);
        if (slot->last_launch_cycles > cycles)
            cycles = slot->last_launch_cycles;
        counted &= slot->last_launch_counted != 0;
    }
    uint32_t per_rank, nr_ranks, nr_dpus;
    shape(range, NULL, &per_rank, &nr_ranks, &nr_dpus);
    if (cycles_out)
        *cycles_out = cycles;
    if (counted_out)
        *counted_out = counted;
    return (double)cycles / (range.allocation->profile.clock_mhz * 1e6) +
           emu_launch_overhead_seconds(per_rank);
}

/* Once per launch, when the host sees it end: its phase totals, and with
 * PYUPMEM_EMU_TIMING=1 a line with its estimate. */
void emu_account_launch_end(struct emu_allocation *allocation)
{
    if (!allocation->launch_unreported)
        return;
    allocation->launch_unreported = false;
    struct emu_range range = allocation->launched;
    uint64_t cycles;
    bool counted;
    double estimate = emu_kernel_estimate_seconds(range, &cycles, &counted);
    double now = emu_now_ns();
    double emulated = (now - allocation->launched_ns) / 1e9;
    add(allocation, EMU_PHASE_KERNEL, emulated, estimate);
    allocation->kernel_ended_ns = now;
    allocation->transfer_ns_since_kernel = 0;
    const char *wanted = getenv("PYUPMEM_EMU_TIMING");
    if (wanted == NULL || *wanted == '\0' || strcmp(wanted, "0") == 0)
        return;
    double mhz = allocation->profile.clock_mhz;
    fprintf(stderr,
            "pyupmem emulator: launch on %u DPUs: %.3f ms estimated on hardware (%llu cycles of the "
            "slowest DPU at %.0f MHz%s, and %.3f ms to boot and poll); %.3f ms emulated\n",
            range.count, estimate * 1e3, (unsigned long long)cycles, mhz,
            counted ? "" : ", DMA and waits only: built without cost counting",
            (estimate - (double)cycles / (mhz * 1e6)) * 1e3, emulated * 1e3);
}

/* pyupmem's extensions: the phase totals of the set's allocation, and the model's
 * transfer estimate for a shape of transfer. */
dpu_error_t dpu_emu_phase_seconds(struct dpu_set_t dpu_set, double *emulated, double *estimated)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    for (int p = 0; p < EMU_PHASES; p++) {
        if (emulated)
            emulated[p] = range.allocation->times.emulated_s[p];
        if (estimated)
            estimated[p] = range.allocation->times.estimated_s[p];
    }
    return DPU_OK;
}

double dpu_emu_transfer_seconds(uint32_t kind, uint64_t bytes_per_dpu, uint32_t dpus_per_rank,
                                uint32_t nr_ranks)
{
    if (kind > EMU_XFER_SERIAL_FROM)
        return -1;
    return emu_transfer_seconds((enum emu_transfer)kind, bytes_per_dpu, dpus_per_rank, nr_ranks);
}

double dpu_emu_launch_overhead_seconds(uint32_t dpus_per_rank)
{
    return emu_launch_overhead_seconds(dpus_per_rank);
}

dpu_error_t dpu_emu_kernel_seconds(struct dpu_set_t dpu_set, double *seconds, double *launch_seconds)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    double total = emu_kernel_estimate_seconds(range, NULL, NULL);
    uint32_t per_rank, nr_ranks, nr_dpus;
    shape(range, NULL, &per_rank, &nr_ranks, &nr_dpus);
    if (seconds)
        *seconds = total;
    if (launch_seconds)
        *launch_seconds = emu_launch_overhead_seconds(per_rank);
    return DPU_OK;
}

/* Each DPU's breakdown of its last launch: `times` holds EMU_MAX_TASKLETS entries per DPU
 * of the set, in order; `nr_tasklets` (one per DPU) says how many of them are used. */
dpu_error_t dpu_emu_tasklet_times(struct dpu_set_t dpu_set, uint32_t *nr_tasklets, void *out)
{
    struct emu_tasklet_times *times = out;
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    for (uint32_t i = 0; i < range.count; i++) {
        const struct emu_slot *slot = emu_slot(range.allocation, range.first + i);
        nr_tasklets[i] = slot->last_launch_tasklets;
        memcpy(&times[(size_t)i * EMU_MAX_TASKLETS], slot->tasklet_times, sizeof(slot->tasklet_times));
    }
    return DPU_OK;
}

/* Whether the set's next launches record their timeline (dpu_emu_trace_events). */
dpu_error_t dpu_emu_trace(struct dpu_set_t dpu_set, bool enable)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    for (uint32_t i = range.first; i < range.first + range.count; i++)
        emu_slot(range.allocation, i)->trace_requested = enable;
    return DPU_OK;
}

/* One DPU's timeline of its last traced launch: up to `capacity` events into `events`;
 * `count` says how many there are, `dropped` how many the DPU could not keep. */
dpu_error_t dpu_emu_trace_events(struct dpu_set_t dpu_set, void *out, uint32_t capacity,
                                 uint32_t *count, uint32_t *dropped)
{
    struct emu_trace_event *events = out;
    struct emu_range range;
    dpu_error_t status = emu_resolve_one(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    const struct emu_slot *slot = emu_slot(range.allocation, range.first);
    uint32_t n = slot->trace_len < capacity ? slot->trace_len : capacity;
    memcpy(events, slot->trace, (size_t)n * sizeof(*events));
    *count = slot->trace_len;
    *dropped = slot->trace_dropped;
    return DPU_OK;
}
