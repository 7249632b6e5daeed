/* hwtime.c: how long a host program's libdpu calls would take on hardware, by phase.
 *
 * Every transfer and every launch adds its emulated (wall) time and its estimated
 * hardware time to its allocation's phase totals and to the process's, which
 * PYUPMEM_EMU_TIMING=1 prints at exit. The phases are PrIM's: CPU-DPU, DPU kernel,
 * Inter-DPU (host work between a launch's end and the next launch, transfers left out:
 * it runs on the same CPU, so its estimate is its wall time) and DPU-CPU.
 *
 * The constants and their sources (docs/explanation/timing.md has the full list):
 * - a transfer call costs a fixed time, plus a time for each DPU of its busiest rank,
 *   plus its bytes over the rank's rate; ranks move in parallel, each further rank
 *   adding 12 us to the DPUs and 25 us from them, and all ranks together move at most
 *   22.6 and 11.0 GB/s (SDK 2023.2 measured on 32 ranks, upmem-sdk-light's results);
 * - a call from the DPUs costs twice one to them (110 us and 0.4 us per DPU, against 55 us
 *   and 0.12 us): small results read back from 1 to 64 DPUs (1 KiB histograms, a GEMV's
 *   16 KiB to 256 B per DPU) take 0.11-0.2 ms on hardware, where 64-byte pushes take
 *   55-62 us a call;
 * - the rank's rate grows with the DPUs of it that take part (the host's cache lines are
 *   spread over the rank's chips); it is interpolated on log-log axes between its values
 *   at 1, 4, 16 and 64 DPUs, separately to the DPUs, from them and for a broadcast. The
 *   rates and the calls' costs are set from hardware runs of seven PrIM workloads at 1 to
 *   64 DPUs at the sizes uPIMulator was validated with (the ratios of issue 25, each
 *   transfer at its own bytes per DPU: 8 MiB to 64 bytes); a broadcast to a rank of 64
 *   keeps the PrIM characterisation's 16.88 GB/s; a push to MRAM whose DPUs all read one
 *   host buffer is a broadcast (xfer.c: libdpu broadcasts by such a push);
 * - reading a WRAM symbol goes through the control interfaces, not the MRAM's DDR path:
 *   it costs WRAM_READ_BYTE_SECONDS per byte of each DPU of the busiest rank (small
 *   results read from 16 and 64 DPUs take 2-11 times what the MRAM path gives, in
 *   proportion to the DPUs and to the bytes each returns);
 * - a copy to or from one DPU (serial) is a call for that DPU at the one-DPU rate;
 * - a launch costs LAUNCH_SECONDS plus LAUNCH_MEMBER_SECONDS for each DPU of the busiest
 *   control interface (8 DPUs a chip) of its busiest rank: libdpu's boot and poll
 *   commands reach all the control interfaces of a rank in one host write (a byte per
 *   chip), so the cost grows with the DPUs per chip, not with the chips; 0.1 ms for one
 *   DPU (measured), 0.12 ms from 8 DPUs on (short kernels at 64 DPUs came out 23% slow
 *   with 0.25 ms, and right at 16 DPUs with 0.12 ms). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

#define GB 1e9
/* A rank's rate at 1, 4, 16 and 64 of its DPUs. */
static const double TO_RATES[4] = {0.56 * GB, 1.45 * GB, 2.13 * GB, 4.6 * GB};
static const double FROM_RATES[4] = {0.111 * GB, 0.40 * GB, 0.69 * GB, 1.44 * GB};
static const double BROADCAST_RANK = 16.88 * GB;
static const double HOST_TO = 22.6 * GB, HOST_FROM = 11.0 * GB;
static const double TO_CALL_SECONDS = 55e-6, TO_DPU_SECONDS = 0.12e-6;
static const double FROM_CALL_SECONDS = 110e-6, FROM_DPU_SECONDS = 0.4e-6;
static const double WRAM_READ_BYTE_SECONDS = 46e-9;
static const double RANK_TO_SECONDS = 12e-6, RANK_FROM_SECONDS = 25e-6;
static const double LAUNCH_SECONDS = 97e-6, LAUNCH_MEMBER_SECONDS = 3e-6;
#define DPUS_PER_CI 8

const char *const emu_phase_names[EMU_PHASES] = {"CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU"};

static struct emu_phase_times process_times;
static bool summary_registered;

double emu_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

/* The rank's rate for `dpus` of its DPUs, on log-log axes between 1, 4, 16 and 64. */
static double rank_rate(const double rates[4], uint32_t dpus)
{
    double x = log2(dpus < 1 ? 1 : dpus > EMU_DPUS_PER_RANK ? EMU_DPUS_PER_RANK : dpus) / 2;
    int below = x >= 3 ? 2 : (int)x;
    double t = x - below;
    return exp(log(rates[below]) * (1 - t) + log(rates[below + 1]) * t);
}

/* A broadcast grows from the one-DPU push to its rank rate with the shape of the pushes. */
static double broadcast_rate(uint32_t dpus)
{
    double share = log(rank_rate(TO_RATES, dpus) / TO_RATES[0]) / log(TO_RATES[3] / TO_RATES[0]);
    return TO_RATES[0] * pow(BROADCAST_RANK / TO_RATES[0], share);
}

double emu_transfer_seconds(enum emu_transfer kind, uint64_t bytes_per_dpu, uint32_t dpus_per_rank,
                            uint32_t nr_ranks)
{
    bool wram = (kind & EMU_XFER_WRAM) != 0;
    kind &= ~EMU_XFER_WRAM;
    if (kind == EMU_XFER_SERIAL_TO || kind == EMU_XFER_SERIAL_FROM)
        dpus_per_rank = nr_ranks = 1;
    double bytes = (double)bytes_per_dpu, dpus = (double)dpus_per_rank;
    double extra_ranks = nr_ranks > 1 ? nr_ranks - 1 : 0;
    bool from = kind == EMU_XFER_PARALLEL_FROM || kind == EMU_XFER_SERIAL_FROM;
    double fixed = from ? FROM_CALL_SECONDS + dpus * FROM_DPU_SECONDS
                        : TO_CALL_SECONDS + dpus * TO_DPU_SECONDS;
    if (wram && from)
        fixed += dpus * bytes * WRAM_READ_BYTE_SECONDS;
    switch (kind) {
    case EMU_XFER_SERIAL_TO:
    case EMU_XFER_PARALLEL_TO: {
        double rank = dpus * bytes / rank_rate(TO_RATES, dpus_per_rank);
        double host = dpus * nr_ranks * bytes / HOST_TO;
        return fixed + extra_ranks * RANK_TO_SECONDS + fmax(rank, host);
    }
    case EMU_XFER_BROADCAST:
        return fixed + extra_ranks * RANK_TO_SECONDS + dpus * bytes / broadcast_rate(dpus_per_rank);
    case EMU_XFER_SERIAL_FROM:
    case EMU_XFER_PARALLEL_FROM: {
        double rank = dpus * bytes / rank_rate(FROM_RATES, dpus_per_rank);
        double host = dpus * nr_ranks * bytes / HOST_FROM;
        return fixed + extra_ranks * RANK_FROM_SECONDS + fmax(rank, host);
    }
    default: break;
    }
    return 0;
}

double emu_launch_overhead_seconds(uint32_t dpus_per_rank)
{
    uint32_t per_ci = dpus_per_rank < 1 ? 1 : dpus_per_rank > DPUS_PER_CI ? DPUS_PER_CI : dpus_per_rank;
    return LAUNCH_SECONDS + LAUNCH_MEMBER_SECONDS * per_ci;
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
    enum emu_transfer direction = kind & ~EMU_XFER_WRAM;
    bool to_dpus = direction != EMU_XFER_PARALLEL_FROM && direction != EMU_XFER_SERIAL_FROM;
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
    if ((kind & ~(uint32_t)EMU_XFER_WRAM) > EMU_XFER_SERIAL_FROM)
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
