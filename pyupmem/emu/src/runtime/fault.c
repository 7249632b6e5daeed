/* fault.c: a broken rule or a crash faults this DPU: the message goes to the slot
 * (and the DPU's log, and stderr), the host is told, and the worker exits. The host
 * process never sees the crash. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime.h"

#define MAX_FAULTS_PRINTED 3u

struct dpurt_state __dpurt;

/* PYUPMEM_EMU_QUIET set (and not "" or "0") keeps faults and warnings off stderr. */
static bool quiet(void)
{
    const char *value = getenv("PYUPMEM_EMU_QUIET");
    return value != NULL && *value != '\0' && strcmp(value, "0") != 0;
}
struct emu_control *__dpurt_control;

void __dpurt_launch_finished(uint32_t final_state)
{
    struct emu_control *control = __dpurt_control;
    struct emu_slot *slot = __dpurt.slot;
    uint32_t was = atomic_exchange(&slot->state, final_state);
    int last = 0;
    if (was == EMU_RUNNING)
        last = atomic_fetch_sub(&control->running, 1) == 1;
    atomic_fetch_add(&control->generation, 1);
    if (last || final_state == EMU_FAULT || atomic_load(&control->wake_each))
        syscall(SYS_futex, &control->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static __attribute__((noreturn)) void report_fault(const char *message)
{
    struct emu_slot *slot = __dpurt.slot;
    if (slot == NULL) {
        fprintf(stderr, "pyupmem emulator: %s\n", message);
        _exit(1);
    }
    snprintf(slot->fault, EMU_FAULT_SIZE, "%s", message);
    char line[EMU_FAULT_SIZE + 16];
    int length = snprintf(line, sizeof(line), "DPU fault: %s\n", message);
    if (slot->log_len > 0 && slot->log[slot->log_len - 1] != '\n')
        __dpurt_log_append("\n", 1);
    __dpurt_log_append(line, (size_t)length);
    /* The first few faults of a launch go to stderr too; with many DPUs faulting at once
     * the rest are only in the error and the logs, not a screenful of the same line. */
    if (!quiet() && __dpurt_control->print_faults) {
        uint32_t printed = atomic_fetch_add(&__dpurt_control->faults_printed, 1);
        if (printed < MAX_FAULTS_PRINTED)
            fprintf(stderr, "pyupmem emulator: DPU#0x%x: %s\n", slot->dpu_id, message);
        else if (printed == MAX_FAULTS_PRINTED)
            fprintf(stderr, "pyupmem emulator: more DPUs faulted; their messages are in the error "
                            "and in each DPU's log\n");
    }
    __dpurt_launch_finished(EMU_FAULT);
    _exit(1);
}

void __dpurt_fault_dpu(const char *format, ...)
{
    char message[EMU_FAULT_SIZE];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    report_fault(message);
}

static uintptr_t program_pc(uintptr_t pc, uintptr_t sp);

/* Where the running tasklet is in the program: the function of the program's call that led
 * into the runtime, and the file and line the caller names (the program's own __FILE__ and
 * __LINE__) or, without them, the line table's. */
static void locate_caller(const char *file, int line, struct dpurt_location *where)
{
    struct dpurt_location found = {.function = "", .file = "?", .line = 0};
    __dpurt_locate_pc(program_pc(0, 0), &found);
    *where = found;
    if (file != NULL) {
        snprintf(where->file, sizeof(where->file), "%s", file);
        where->line = line;
    }
}

/* " (tasklet N, in FUNCTION() at FILE:LINE)", or as much of it as is known. */
static void append_place(char *message, size_t size, const struct dpurt_location *where)
{
    size_t length = strlen(message);
    if (length >= size - 1)
        return;
    char *out = message + length;
    size -= length;
    if (where == NULL)
        return; /* the message names its place itself */
    if (where->function[0] != '\0' && where->line > 0)
        snprintf(out, size, " (tasklet %u, in %s() at %s:%d)", __dpurt.current, where->function,
                 where->file, where->line);
    else if (where->function[0] != '\0')
        snprintf(out, size, " (tasklet %u, in %s(); build with -g for its line)", __dpurt.current,
                 where->function);
    else
        snprintf(out, size, " (tasklet %u, %s:%d)", __dpurt.current, where->file, where->line);
}

static __attribute__((noreturn)) void fault_v(const struct dpurt_location *where, const char *format,
                                              va_list args)
{
    char message[EMU_FAULT_SIZE];
    vsnprintf(message, sizeof(message), format, args);
    append_place(message, sizeof(message), where);
    report_fault(message);
}

void __dpurt_fault_at(const struct dpurt_location *where, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fault_v(where, format, args);
}

void __dpurt_fault(const char *file, int line, const char *format, ...)
{
    struct dpurt_location where;
    locate_caller(file, line, &where);
    va_list args;
    va_start(args, format);
    if (file == NULL && where.function[0] == '\0') { /* not in the program's code */
        char message[EMU_FAULT_SIZE];
        vsnprintf(message, sizeof(message), format, args);
        size_t length = strlen(message);
        snprintf(message + length, sizeof(message) - length, " (tasklet %u)", __dpurt.current);
        report_fault(message);
    }
    fault_v(&where, format, args);
}

static void warn_v(const char *rule, const char *file, int line, const struct dpurt_location *at,
                   const char *format, va_list args);

void __dpurt_warn_once(const char *rule, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    warn_v(rule, file, line, NULL, format, args);
    va_end(args);
}

void __dpurt_warn_once_at(const char *rule, const struct dpurt_location *where, const char *format,
                          ...)
{
    va_list args;
    va_start(args, format);
    warn_v(rule, where->file, where->line, where, format, args);
    va_end(args);
}

static void warn_v(const char *rule, const char *file, int line, const struct dpurt_location *at,
                   const char *format, va_list args)
{
    /* One warning per (rule, source line) for the whole allocation: the table lives in
     * the control block that every DPU of the allocation shares. */
    uint64_t key = 1469598103934665603ull;
    for (const char *c = rule; *c; c++)
        key = (key ^ (unsigned char)*c) * 1099511628211ull;
    for (const char *c = file ? file : ""; *c; c++)
        key = (key ^ (unsigned char)*c) * 1099511628211ull;
    key = ((key ^ (uint64_t)line) * 1099511628211ull) | 1;
    if (__dpurt_control != NULL) {
        bool fresh = false;
        for (uint32_t probe = 0; probe < EMU_WARNED_SLOTS; probe++) {
            _Atomic uint64_t *entry = &__dpurt_control->warned[(key + probe) % EMU_WARNED_SLOTS];
            uint64_t seen = 0;
            if (atomic_compare_exchange_strong(entry, &seen, key)) {
                fresh = true;
                break;
            }
            if (seen == key)
                break;
        }
        if (!fresh)
            return; /* already warned, or too many distinct lines to keep track of */
    }
    if (quiet())
        return;
    struct dpurt_location where;
    if (at != NULL)
        where = *at;
    else
        locate_caller(file, line, &where); /* only for a fresh warning: addr2line is a process */
    char message[1024];
    vsnprintf(message, 768, format, args);
    append_place(message, sizeof(message), &where);
    fprintf(stderr,
            "pyupmem emulator: DPU#0x%x: warning: %s; this breaks a documented rule: set "
            "PYUPMEM_EMU_STRICT=1 to make it a fault\n",
            __dpurt.slot ? __dpurt.slot->dpu_id : 0, message);
}

/* The first address of the DPU program's own code on the faulting stack: `pc` itself, or
 * the return address of the program's call that led into libc or this runtime (abort(),
 * a bad pointer given to memcpy ...), minus one so that it names the call's line. */
static uintptr_t program_pc(uintptr_t pc, uintptr_t sp)
{
    if (__dpurt_in_program_text(pc))
        return pc;
    uintptr_t caller = __dpurt_program_return_address(sp);
    return caller != 0 ? caller - 1 : 0;
}

/* Where a program address is in its source: its function, file and line, from the
 * program's DWARF line table by binutils' addr2line (gcc's companion, so it is there;
 * C++ names demangled, without their parameters).
 * A child process per address: the last few answers are kept, for an address that a
 * warning meets again and again (an ordinary access to MRAM in a loop). */
bool __dpurt_locate_pc(uintptr_t pc, struct dpurt_location *where)
{
    static struct {
        uintptr_t pc;
        bool found;
        struct dpurt_location where;
    } known[16];
    static unsigned next_known;
    for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (pc != 0 && known[i].pc == pc) {
            if (known[i].found)
                *where = known[i].where;
            return known[i].found;
        }
    int pipe_fds[2];
    if (pc == 0 || pipe(pipe_fds) != 0)
        return false;
    char address[32], program[64];
    snprintf(address, sizeof(address), "0x%lx", (unsigned long)pc);
    /* The DPU program's file, which the worker keeps open. */
    snprintf(program, sizeof(program), "/proc/%d/fd/%d", (int)getpid(), __dpurt_program_fd);
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(pipe_fds[0]);
        execlp("addr2line", "addr2line", "-f", "-C", "-e", program, address, (char *)NULL);
        _exit(127);
    }
    close(pipe_fds[1]);
    char text[512];
    size_t used = 0;
    ssize_t got;
    while (child > 0 && used < sizeof(text) - 1 &&
           (got = read(pipe_fds[0], text + used, sizeof(text) - 1 - used)) > 0)
        used += (size_t)got;
    text[used] = '\0';
    close(pipe_fds[0]);
    if (child > 0)
        waitpid(child, NULL, 0);
    char *function = strtok(text, "\n"), *place = strtok(NULL, "\n");
    char *colon = place ? strrchr(place, ':') : NULL;
    /* Line 0: no line table for the address (a program built without -g), whatever file
     * addr2line names; the function still comes from the symbol table. */
    bool has_line = colon != NULL && strncmp(place, "??", 2) != 0 && atoi(colon + 1) > 0;
    bool found = function != NULL && strncmp(function, "??", 2) != 0;
    if (found) {
        if (strcmp(function, "dpu_main") == 0)
            function = "main"; /* the program's main, renamed by the toolchain */
        char *parameters = strchr(function, '('); /* C++ (-C demangles): its name only */
        if (parameters != NULL && parameters != function)
            *parameters = '\0';
        char *clone = strchr(function, '.'); /* gcc's copies: f.constprop.0, f.part.0, f.cold */
        if (clone != NULL && clone != function)
            *clone = '\0';
        snprintf(where->function, sizeof(where->function), "%s", function);
        snprintf(where->file, sizeof(where->file), "?");
        where->line = 0;
    }
    if (found && has_line) {
        *colon = '\0';
        const char *file = strrchr(place, '/');
        snprintf(where->file, sizeof(where->file), "%s", file ? file + 1 : place);
        where->line = atoi(colon + 1); /* "12 (discriminator 3)" reads as 12 */
    }
    unsigned slot = next_known++ % (sizeof(known) / sizeof(known[0]));
    known[slot].pc = pc;
    known[slot].found = found;
    if (found)
        known[slot].where = *where;
    return found;
}

/* " in FUNCTION() at FILE:LINE" for a program address; "" when it cannot tell. */
static void describe_program_pc(uintptr_t pc, char *out, size_t size)
{
    struct dpurt_location where = {.function = "", .file = "?", .line = 0};
    out[0] = '\0';
    if (__dpurt_locate_pc(pc, &where) && where.line > 0)
        snprintf(out, size, " in %s() at %s:%d", where.function, where.file, where.line);
    else if (where.function[0] != '\0')
        snprintf(out, size, " in %s() (build with -g for its line)", where.function);
}

static void on_signal(int signo, siginfo_t *info, void *context)
{
    if (signo == SIGSEGV && (__dpurt_plain_mram_access(info->si_addr, context) ||
                             __dpurt_low_address_access(info->si_addr, context)))
        return; /* the access is stepped onto WRAM, as on a DPU */
    if (signo == SIGTRAP && __dpurt_step_done(context))
        return;
    uintptr_t pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RSP];
    char where[512] = "";
    Dl_info symbol;
    describe_program_pc(program_pc(pc, sp), where, sizeof(where));
    if (where[0] != '\0')
        ; /* the program's own file and line */
    else if (pc != 0 && dladdr((void *)pc, &symbol) && symbol.dli_sname != NULL)
        snprintf(where, sizeof(where), " in %s+0x%lx", symbol.dli_sname,
                 (unsigned long)(pc - (uintptr_t)symbol.dli_saddr));
    else if (pc != 0)
        snprintf(where, sizeof(where), " at pc %p", (void *)pc);
    const char *what;
    switch (signo) {
    case SIGSEGV: what = "bad memory access (SIGSEGV)"; break;
    case SIGBUS: what = "bad memory access (SIGBUS)"; break;
    case SIGFPE: what = "arithmetic error, e.g. division by zero (SIGFPE)"; break;
    case SIGILL: what = "illegal instruction (SIGILL)"; break;
    case SIGABRT: what = "abort() called (SIGABRT)"; break;
    default: what = "trap (SIGTRAP)"; break;
    }
    char message[1024];
    unsigned overflowed;
    uint32_t stack_size, mram_address;
    if (signo == SIGSEGV && __dpurt_in_stack_guard(info->si_addr, &overflowed, &stack_size))
        snprintf(message, sizeof(message),
                 "stack overflow%s: tasklet %u used more than its %u-byte stack (on hardware it "
                 "would overwrite other data); give it more with -DSTACK_SIZE_TASKLET_%u=<bytes> "
                 "or -DSTACK_SIZE_DEFAULT=<bytes>, or use less: large local arrays belong in "
                 "global WRAM or MRAM",
                 where, overflowed, stack_size, overflowed);
    else if (signo == SIGSEGV && __dpurt_outside_mram(info->si_addr, &mram_address))
        snprintf(message, sizeof(message),
                 "bad MRAM access (SIGSEGV): an __mram_ptr access at 0x%08x, outside MRAM "
                 "(0x%08x-0x%08x, or offsets below 0x%08x)%s (tasklet %u); on a DPU only the "
                 "address's low 26 bits would count: keep __mram_ptr pointers inside MRAM",
                 mram_address, EMU_MRAM_BASE, EMU_MRAM_BASE + EMU_MRAM_SIZE - 1, EMU_MRAM_SIZE,
                 where, __dpurt.current);
    else if (signo == SIGSEGV || signo == SIGBUS)
        snprintf(message, sizeof(message), "%s at address %p%s (tasklet %u)", what, info->si_addr,
                 where, __dpurt.current);
    else
        snprintf(message, sizeof(message), "%s%s (tasklet %u)", what, where, __dpurt.current);
    report_fault(message);
}

void __dpurt_install_fault_handlers(void)
{
    static char alternate_stack[64 << 10];
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof(alternate_stack), .ss_flags = 0};
    sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
        sigaction(signals[i], &action, NULL);
}

/* abort() of a DPU program (stdlib.h): the DPU faults, at the program's call. */
void __dpurt_abort(void)
{
    char where[512] = "";
    describe_program_pc(program_pc(0, 0), where, sizeof(where));
    __dpurt_fault_at(NULL, "abort() called (SIGABRT)%s (tasklet %u)", where, __dpurt.current);
}

/* assert() of a DPU program: the message goes to the fault, with the file and line that
 * assert() names and the function of the program's call (assert.h passes none, to keep
 * the string out of WRAM). */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function)
{
    struct dpurt_location where;
    if (function == NULL)
        function = __dpurt_locate_pc(program_pc(0, 0), &where) ? where.function : "?";
    else if (strcmp(function, "dpu_main") == 0)
        function = "main"; /* the toolchain renames the program's main */
    __dpurt_fault_at(NULL, "assertion failed: %s in %s() (tasklet %u, %s:%u)", assertion, function,
                     __dpurt.current, file, line);
}
