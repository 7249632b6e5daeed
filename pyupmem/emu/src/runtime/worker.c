/* worker.c: the process side of a DPU program. At each load the host starts this worker
 * once as a "zygote" for the program: it loads the program (loader.c), then forks one
 * worker per DPU (cheap: copy-on-write) and supervises them: it reaps them, reports a
 * worker that died as a fault, and kills them all when the host frees the set (SIGTERM)
 * or dies (pidfd).
 *
 * Each worker maps its DPU's MRAM (a slice of the host's MRAM memfd) where the program's
 * __mram_ptr accesses reach it (address_spaces.c), and its WRAM (the program's WRAM
 * segment) onto a slice of the load's WRAM memfd, so the host reads and writes both with
 * plain memcpy. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

extern struct emu_control *__dpurt_control;

struct segment {
    uintptr_t start; /* page-aligned */
    size_t size;     /* page-aligned */
    size_t used;     /* p_memsz: bytes the program's variables take */
};

int __dpurt_program_fd = -1;

/* The program's WRAM segment, page-aligned, from the image's own bounds. */
static struct segment wram_segment(void)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct segment segment;
    segment.start = __dpurt_image.wram_start & ~(page - 1);
    segment.size = ((__dpurt_image.wram_end + page - 1) & ~(page - 1)) - segment.start;
    segment.used = __dpurt_image.wram_end - __dpurt_image.wram_start;
    return segment;
}

static void wake_host(void)
{
    atomic_fetch_add(&__dpurt_control->generation, 1);
    syscall(SYS_futex, &__dpurt_control->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static __attribute__((noreturn)) void worker_main(pid_t zygote, uint32_t slot_index, uint32_t nth,
                                                  int mram_fd, int wram_fd,
                                                  const struct segment *wram)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != zygote)
        _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct emu_slot *slot = &__dpurt_control->slots[slot_index];
    __dpurt.slot = slot;
    __dpurt_install_fault_handlers();

    __dpurt_map_mram(mram_fd, slot_index, __dpurt_image.flat_mram != 0);
    /* The program's variables as initialised (and relocated) become this DPU's WRAM. */
    off_t wram_offset = (off_t)nth * (off_t)wram->size;
    if (pwrite(wram_fd, (void *)wram->start, wram->size, wram_offset) != (ssize_t)wram->size)
        __dpurt_fault(NULL, 0, "cannot initialise WRAM: %s", strerror(errno));
    if (mmap((void *)wram->start, wram->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, wram_fd,
             wram_offset) == MAP_FAILED)
        __dpurt_fault(NULL, 0, "cannot map WRAM: %s", strerror(errno));
    close(mram_fd);
    __dpurt_keep_wram(wram_fd, wram_offset, wram->start, wram->size);

    __dpurt.strict = __dpurt_control->strict != 0;
    __dpurt.wram_size = __dpurt_control->wram_size;
    __dpurt.shuffle = __dpurt_control->shuffle != 0;
    __dpurt.shuffle_seed = __dpurt_control->shuffle_seed;
    /* Programs built with cost counting carry this marker (toolchain/dpu_cost_as.py). */
    __dpurt.counting = __dpurt_image.cost_counted != 0;
    __dpurt_tasklets_init();
    __dpurt_heap_init();
    uint32_t seen = atomic_load(&slot->command_seq);
    atomic_store(&slot->pid, getpid());
    atomic_store(&slot->state, EMU_READY);
    wake_host();
    _Atomic uint32_t *launches = emu_launch_word(__dpurt_control, slot_index);
    for (;;) {
        /* Read before command_seq: a launch after this read changes the word, so the
         * wait returns at once instead of missing its wake. */
        uint32_t word = atomic_load(launches);
        uint32_t seq = atomic_load(&slot->command_seq);
        if (seq == seen) {
            syscall(SYS_futex, launches, FUTEX_WAIT_BITSET, word, NULL, NULL,
                    emu_launch_bit(slot_index));
            continue;
        }
        seen = seq;
        if (atomic_load(&slot->state) != EMU_RUNNING)
            continue;
        slot->log_len = 0;
        slot->log_truncated = 0;
        __dpurt_unalias_mram(); /* each launch warns again about the lines it reaches first */
        uint64_t start = __dpurt_now_ns();
        __dpurt_run_launch();
        slot->last_launch_ns = __dpurt_now_ns() - start;
        slot->last_launch_cycles = __dpurt.launch_cycles;
        slot->last_launch_counted = __dpurt.counting;
        __dpurt_launch_finished(EMU_READY);
    }
}

struct child {
    pid_t pid;
    uint32_t slot;
};

static void reap(struct child *children, uint32_t count, uint32_t *live)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (uint32_t i = 0; i < count; i++) {
            if (children[i].pid != pid)
                continue;
            children[i].pid = 0;
            (*live)--;
            struct emu_slot *slot = &__dpurt_control->slots[children[i].slot];
            if (atomic_load(&slot->pid) == pid || atomic_load(&slot->pid) == 0) {
                uint32_t state = atomic_load(&slot->state);
                if (state == EMU_LOADING || state == EMU_READY || state == EMU_RUNNING) {
                    /* Died without reporting a fault: killed, out of memory, or _exit in the program. */
                    if (WIFSIGNALED(status))
                        snprintf(slot->fault, EMU_FAULT_SIZE, "the DPU's worker process was killed by signal %d (%s)",
                                 WTERMSIG(status), strsignal(WTERMSIG(status)));
                    else
                        snprintf(slot->fault, EMU_FAULT_SIZE, "the DPU program exited (status %d) instead of returning from main",
                                 WEXITSTATUS(status));
                    uint32_t was = atomic_exchange(&slot->state, EMU_FAULT);
                    if (was == EMU_RUNNING)
                        atomic_fetch_sub(&__dpurt_control->running, 1);
                }
                atomic_store(&slot->pid, 0);
                wake_host();
            }
        }
    }
}

static void kill_all(struct child *children, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (children[i].pid > 0)
            kill(children[i].pid, SIGKILL);
}

int main(int argc, char **argv)
{
    if (argc != 9 || strcmp(argv[1], EMU_ZYGOTE_FLAG) != 0) {
        fprintf(stderr,
                "%s: this is the pyupmem emulator's DPU worker; the emulator's libdpu starts it "
                "(dpu_load() from a host program, or pyupmem's DpuSet.load)\n",
                argv[0]);
        return 2;
    }
    int control_fd = atoi(argv[2]), mram_fd = atoi(argv[3]), wram_fd = atoi(argv[4]);
    uint32_t first = (uint32_t)strtoul(argv[5], NULL, 10);
    uint32_t count = (uint32_t)strtoul(argv[6], NULL, 10);
    __dpurt.nr_tasklets = (uint32_t)strtoul(argv[7], NULL, 10);
    __dpurt_program_fd = atoi(argv[8]);
    pid_t host = getppid();

    struct stat control_stat;
    if (fstat(control_fd, &control_stat) != 0)
        return 3;
    __dpurt_control = mmap(NULL, (size_t)control_stat.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                           control_fd, 0);
    if (__dpurt_control == MAP_FAILED)
        return 3;
    close(control_fd);

    char error[256];
    if (__dpurt_load_image(__dpurt_program_fd, error, sizeof(error)) != 0) {
        for (uint32_t i = 0; i < count; i++) {
            struct emu_slot *slot = &__dpurt_control->slots[first + i];
            snprintf(slot->fault, EMU_FAULT_SIZE, "cannot load the DPU program: %s", error);
            atomic_store(&slot->state, EMU_FAULT);
        }
        wake_host();
        return 5;
    }
    struct segment wram = wram_segment();
    __dpurt.wram_used = (uint32_t)wram.used;

    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigprocmask(SIG_BLOCK, &handled, NULL);
    int signals = signalfd(-1, &handled, SFD_CLOEXEC);
    int host_fd = (int)syscall(SYS_pidfd_open, host, 0);
    if (host_fd < 0)
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* kernels before 5.3: no pidfd */
    if (getppid() != host)
        return 4;

    struct child *children = calloc(count, sizeof(*children));
    uint32_t live = 0;
    pid_t zygote = getpid();
    for (uint32_t i = 0; i < count; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(signals);
            if (host_fd >= 0)
                close(host_fd);
            worker_main(zygote, first + i, i, mram_fd, wram_fd, &wram);
        }
        if (pid < 0) {
            struct emu_slot *slot = &__dpurt_control->slots[first + i];
            snprintf(slot->fault, EMU_FAULT_SIZE, "cannot start the DPU's worker process: %s",
                     strerror(errno));
            atomic_store(&slot->state, EMU_FAULT);
            wake_host();
            continue;
        }
        children[i].pid = pid;
        children[i].slot = first + i;
        live++;
    }
    close(mram_fd);
    close(wram_fd);

    while (live > 0) {
        struct pollfd fds[2] = {{signals, POLLIN, 0}, {host_fd, POLLIN, 0}};
        int ready = poll(fds, host_fd >= 0 ? 2 : 1, -1);
        if (ready < 0 && errno != EINTR)
            break;
        if (host_fd >= 0 && (fds[1].revents & POLLIN)) {
            kill_all(children, count); /* the host died */
            break;
        }
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            while (read(signals, &info, sizeof(info)) == sizeof(info)) {
                if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT) {
                    kill_all(children, count);
                    goto out;
                }
                if (info.ssi_signo == SIGCHLD)
                    break;
            }
            reap(children, count, &live);
        }
    }
out:
    while (live > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
            break;
        for (uint32_t i = 0; i < count; i++)
            if (children[i].pid == pid) {
                children[i].pid = 0;
                live--;
                struct emu_slot *slot = &__dpurt_control->slots[children[i].slot];
                atomic_store(&slot->pid, 0);
            }
    }
    wake_host();
    return 0;
}
