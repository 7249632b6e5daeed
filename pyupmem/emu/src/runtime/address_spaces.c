/* address_spaces.c: WRAM and MRAM as two address spaces, as on a DPU.
 *
 * The program reaches MRAM through gcc's named address space __seg_gs (attributes.h makes
 * __mram_ptr and __mram variables __seg_gs): the worker points gs at a reservation that
 * maps this DPU's MRAM at its DPU addresses [0x08000000, 0x0C000000) and, since a DPU uses
 * only the low 26 bits, at its offsets [0, 64 MiB) too. The same addresses in the ordinary
 * address space are left unmapped, so an ordinary load or store at an MRAM address traps.
 * On a DPU such an access is a WRAM access at the address's low 16 bits; here it does the
 * same (with a warning naming the line, or a fault in strict mode): the trapped page is
 * mapped for one instruction onto the WRAM the address's low bits name, the instruction
 * is single-stepped, and the page is unmapped again. C++ programs (no named address
 * spaces) keep MRAM in the ordinary address space. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime.h"

#define PAGE 4096u
#define TRAP_FLAG 0x100
#define WRAM_ADDRESS_MASK 0xffffu /* a DPU's WRAM addresses are 16 bits (64 KiB) */
#define MRAM_WINDOW ((size_t)1 << 32) /* what a 32-bit address reaches from gs's base */

char *__dpurt_mram;
volatile sig_atomic_t __dpurt_stepping;

static bool flat;            /* MRAM is in the ordinary address space too (C++) */
static int wram_fd = -1;     /* this DPU's WRAM (the load's memfd) ... */
static off_t wram_offset;    /* ... at this offset */
static uintptr_t wram_start; /* where the program sees it; the host's DPU WRAM address 0 */
static size_t wram_bytes;
static uintptr_t stepped[4]; /* pages mapped for the instruction being stepped */
static unsigned nr_stepped;

static void reserve(uintptr_t start, size_t length)
{
    mmap((void *)start, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
         -1, 0);
}

void __dpurt_map_mram(int mram_fd, uint32_t slot_index, bool in_flat_space)
{
    off_t offset = (off_t)slot_index * EMU_MRAM_SIZE;
    /* All that a 32-bit __seg_gs address reaches, so that a stray one faults here instead
     * of landing in the worker's own memory. */
    size_t span = MRAM_WINDOW;
    char *space = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (space == MAP_FAILED ||
        mmap(space, EMU_MRAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mram_fd, offset) ==
            MAP_FAILED ||
        mmap(space + EMU_MRAM_BASE, EMU_MRAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
             mram_fd, offset) == MAP_FAILED)
        __dpurt_fault(NULL, 0, "cannot map MRAM: %s", strerror(errno));
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)space) != 0)
        __dpurt_fault(NULL, 0, "cannot set the MRAM address space (gs): %s", strerror(errno));
    __dpurt_mram = space + EMU_MRAM_BASE;
    flat = in_flat_space;
    if (flat) {
        if (mmap((void *)(uintptr_t)EMU_MRAM_BASE, EMU_MRAM_SIZE, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, mram_fd, offset) == MAP_FAILED)
            __dpurt_fault(NULL, 0, "cannot map MRAM: %s", strerror(errno));
        /* its offsets from 64 KiB (vm.mmap_min_addr) too; lower ones still fault */
        mmap((void *)(uintptr_t)0x10000, EMU_MRAM_SIZE - 0x10000, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED_NOREPLACE, mram_fd, offset + 0x10000);
    } else {
        /* Nothing else may land there: an access at an MRAM address must trap. */
        reserve(EMU_MRAM_BASE, EMU_MRAM_SIZE);
        reserve(0x10000, EMU_MRAM_SIZE - 0x10000);
    }
}

bool __dpurt_outside_mram(const void *address, uint32_t *mram_address)
{
    if (__dpurt_mram == NULL)
        return false;
    uintptr_t space = (uintptr_t)__dpurt_mram - EMU_MRAM_BASE;
    uintptr_t at = (uintptr_t)address;
    if (at < space || at - space >= MRAM_WINDOW)
        return false;
    *mram_address = (uint32_t)(at - space);
    return true;
}

void __dpurt_keep_wram(int fd, off_t offset, uintptr_t start, size_t bytes)
{
    wram_fd = fd;
    wram_offset = offset;
    wram_start = start;
    wram_bytes = bytes;
}

bool __dpurt_plain_mram_access(const void *address, void *context)
{
    uintptr_t at = (uintptr_t)address;
    bool mram = at >= EMU_MRAM_BASE && at < (uintptr_t)EMU_MRAM_BASE + EMU_MRAM_SIZE;
    bool offset = at >= 0x10000 && at < EMU_MRAM_SIZE;
    ucontext_t *interrupted = context;
    uintptr_t pc = (uintptr_t)interrupted->uc_mcontext.gregs[REG_RIP];
    if (flat || !(mram || offset) || !__dpurt_in_program_text(pc) || nr_stepped == 4)
        return false;
    uint32_t wram_address = (uint32_t)at & WRAM_ADDRESS_MASK;
    struct dpurt_location where = {.function = "", .file = "?", .line = 0};
    __dpurt_locate_pc(pc, &where);
    const char *file = where.file;
    int line = where.line;
    if (__dpurt.strict)
        __dpurt_fault(file, line,
                      "an ordinary load or store at the MRAM address 0x%lx: on a DPU only DMA "
                      "(mram_read, mram_write, __mram_ptr) reaches MRAM, and this is a WRAM access "
                      "at 0x%04x",
                      (unsigned long)at, wram_address);
    if (wram_address + 8u > wram_bytes)
        __dpurt_fault(file, line,
                      "an ordinary load or store at the MRAM address 0x%lx: on a DPU this is a WRAM "
                      "access at 0x%04x, past the program's variables, where the emulator's WRAM is "
                      "laid out differently; reach MRAM with mram_read/mram_write or an __mram_ptr "
                      "pointer",
                      (unsigned long)at, wram_address);
    __dpurt_warn_once("mram-pointer", file, line,
                      "an ordinary load or store at the MRAM address 0x%lx reaches WRAM at 0x%04x, as "
                      "on a DPU, not MRAM: use mram_read/mram_write or an __mram_ptr pointer "
                      "(a cast to an ordinary pointer loses the MRAM address space)",
                      (unsigned long)at, wram_address);
    uintptr_t page = at & ~(uintptr_t)(PAGE - 1);
    off_t target = wram_offset + (off_t)(wram_address & ~(PAGE - 1));
    if (mmap((void *)page, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, wram_fd, target) ==
        MAP_FAILED)
        return false;
    stepped[nr_stepped++] = page;
    __dpurt_stepping = 1;
    interrupted->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG; /* one instruction, then SIGTRAP */
    return true;
}

bool __dpurt_step_done(void *context)
{
    if (!__dpurt_stepping)
        return false;
    for (unsigned i = 0; i < nr_stepped; i++)
        reserve(stepped[i], PAGE);
    nr_stepped = 0;
    __dpurt_stepping = 0;
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
    return true;
}
