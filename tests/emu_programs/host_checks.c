/* Host-side checks of the emulated libdpu: prints `name=code` for each. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT(name, expression) printf("%s=%d\n", name, (int)(expression))

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FAULTS_BINARY TOO_MANY_TASKLETS_BINARY\n", argv[0]);
        return 2;
    }
    struct dpu_set_t set, dpu, probe;
    uint8_t bytes[64] = {0};
    REPORT("profile_no_equal", dpu_alloc(1, "nrRanks", &probe));
    REPORT("profile_bad_ranks", dpu_alloc(1, "nrRanks=abc", &probe));
    REPORT("profile_bad_backend", dpu_alloc(1, "backend=quantum", &probe));
    REPORT("too_many_dpus", dpu_alloc(65, "nrRanks=1", &probe));
    REPORT("zero_dpus", dpu_alloc(0, NULL, &probe));

    DPU_ASSERT(dpu_alloc(2, "backend=simulator,nrRanks=2", &set));
    REPORT("launch_without_program", dpu_launch(set, DPU_SYNCHRONOUS));
    REPORT("copy_without_program", dpu_copy_to(set, "mode", 0, bytes, 4));
    REPORT("no_such_file", dpu_load(set, "/nonexistent/program", NULL));
    REPORT("not_elf", dpu_load(set, "/etc/hostname", NULL));
    REPORT("not_dpu_program", dpu_load(set, "/bin/sh", NULL));
    REPORT("too_many_tasklets", dpu_load(set, argv[2], NULL));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_FOREACH(set, dpu) { break; }

    REPORT("unknown_symbol", dpu_copy_to(set, "no_such_variable", 0, bytes, 8));
    REPORT("mram_offset_not_x8", dpu_copy_to(set, "buffer", 4, bytes, 8));
    REPORT("mram_length_not_x8", dpu_copy_to(set, "buffer", 0, bytes, 12));
    REPORT("mram_beyond_64mib", dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 64u << 20, bytes, 8));
    REPORT("mram_ok", dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 1024, bytes, 16));
    REPORT("wram_length_not_x4", dpu_copy_to(set, "mode", 0, bytes, 2));
    REPORT("beyond_symbol", dpu_copy_to(set, "mode", 0, bytes, 8));
    REPORT("beyond_small_symbol", dpu_copy_to(set, "small_symbol", 4, bytes, 4));
    REPORT("mram_beyond_symbol", dpu_copy_to(set, "buffer", 8192 - 8, bytes, 16));
    REPORT("copy_from_multi", dpu_copy_from(set, "mode", 0, bytes, 4));
    REPORT("log_read_multi", dpu_log_read(set, stdout));
    REPORT("copy_from_single", dpu_copy_from(dpu, "mode", 0, bytes, 4));
    REPORT("bad_policy", dpu_launch(set, (dpu_launch_policy_t)7));
    REPORT("bad_xfer", dpu_push_xfer(set, (dpu_xfer_t)5, "mode", 0, 4, DPU_XFER_DEFAULT));

    /* Ten minutes: still running at every check below however slow this machine is; the
     * host stops it once they are done, so no check depends on the machine's speed. */
    uint32_t spin = 600000, mode = 9, culprit = 0;
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "culprit", 0, &culprit, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "spin_ms", 0, &spin, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
    REPORT("mram_while_running", dpu_copy_to(set, "buffer", 0, bytes, 8));
    REPORT("wram_while_running", dpu_copy_to(set, "mode", 0, bytes, 4));
    REPORT("launch_while_running", dpu_launch(set, DPU_ASYNCHRONOUS));
    REPORT("sync_with_short_timeout", dpu_emu_sync_timeout(set, 10));
    bool done = true, fault = true;
    DPU_ASSERT(dpu_status(set, &done, &fault));
    REPORT("status_done_while_running", done);
    REPORT("stop", dpu_emu_stop(set));
    REPORT("sync", dpu_sync(set));
    DPU_ASSERT(dpu_status(set, &done, &fault));
    REPORT("status_done_after_sync", done);
    REPORT("status_fault_after_sync", fault);
    REPORT("free_a_dpu", dpu_free(dpu));
    REPORT("free", dpu_free(set));
    return 0;
}
