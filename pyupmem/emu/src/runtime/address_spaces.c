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
 * is single-stepped, and the page is unmapped again. When the same instruction traps on
 * the same page a second time (a loop), the page stays mapped onto that WRAM page for the
 * rest of the launch, so the loop runs at native speed: every line of the loop has trapped
 * (and warned) once by then. C++ programs (no named address spaces) keep MRAM in the
 * ordinary address space.
 *
 * A DPU's WRAM addresses start at 0, where the SDK's start-up code keeps an 8-byte zero
 * (__sys_null_pointer, dpu.ld): a read through a null pointer gives 0. The program's
 * pointers here are the worker's addresses, and nothing can be mapped below 64 KiB
 * (vm.mmap_min_addr), so an access through a null or small stray pointer (an address
 * below 64 KiB, a DPU WRAM address) is redirected instead: the instruction's base register
 * is moved by where WRAM lies for one single-stepped instruction, then put back. */
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

/* (page, instruction) pairs that trapped this launch, and the pages now mapped onto WRAM
 * for the rest of it. */
#define SEEN_SLOTS 1024u
#define MAX_ALIASED 256u
static uint64_t seen[SEEN_SLOTS];
static unsigned nr_seen;
static uintptr_t aliased[MAX_ALIASED];
static unsigned nr_aliased;

/* The register moved for a redirected access below 64 KiB: its gregs index, its value
 * before, and by how much. */
static int moved_register = -1;
static greg_t moved_from, moved_by;

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

/* Whether the pair (page, pc) trapped before this launch; records it if not. */
static bool seen_before(uintptr_t page, uintptr_t pc)
{
    uint64_t key = ((uint64_t)page << 32 | (uint32_t)pc) | 1; /* x32: both below 4 GiB */
    uint64_t hash = key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < SEEN_SLOTS; probe++) {
        uint64_t *slot = &seen[((hash >> 54) + probe) & (SEEN_SLOTS - 1)];
        if (*slot == key)
            return true;
        if (*slot == 0) {
            if (nr_seen < SEEN_SLOTS / 2) { /* half full at most: short probes */
                *slot = key;
                nr_seen++;
            }
            return false;
        }
    }
    return false;
}

void __dpurt_unalias_mram(void)
{
    for (unsigned i = 0; i < nr_aliased; i++)
        reserve(aliased[i], PAGE);
    nr_aliased = 0;
    memset(seen, 0, sizeof(seen));
    nr_seen = 0;
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
    if (__dpurt.strict)
        __dpurt_fault_at(&where,
                         "an ordinary load or store at the MRAM address 0x%lx: on a DPU only DMA "
                         "(mram_read, mram_write, __mram_ptr) reaches MRAM, and this is a WRAM access "
                         "at 0x%04x",
                         (unsigned long)at, wram_address);
    if (wram_address + 8u > wram_bytes)
        __dpurt_fault_at(&where,
                         "an ordinary load or store at the MRAM address 0x%lx: on a DPU this is a WRAM "
                         "access at 0x%04x, past the program's variables, where the emulator's WRAM is "
                         "laid out differently; reach MRAM with mram_read/mram_write or an __mram_ptr "
                         "pointer",
                         (unsigned long)at, wram_address);
    __dpurt_warn_once_at("mram-pointer", &where,
                         "an ordinary load or store at the MRAM address 0x%lx reaches WRAM at 0x%04x, as "
                         "on a DPU, not MRAM: use mram_read/mram_write or an __mram_ptr pointer "
                         "(a cast to an ordinary pointer loses the MRAM address space)",
                         (unsigned long)at, wram_address);
    uintptr_t page = at & ~(uintptr_t)(PAGE - 1);
    off_t target = wram_offset + (off_t)(wram_address & ~(PAGE - 1));
    bool again = seen_before(page, pc) && nr_aliased < MAX_ALIASED;
    if (mmap((void *)page, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, wram_fd, target) ==
        MAP_FAILED)
        return false;
    if (again) { /* the instruction runs again, natively, on the page left mapped */
        aliased[nr_aliased++] = page;
        return true;
    }
    stepped[nr_stepped++] = page;
    __dpurt_stepping = 1;
    interrupted->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG; /* one instruction, then SIGTRAP */
    return true;
}

/* What the redirection of an access below 64 KiB needs of the instruction at `code`: the
 * register its memory operand is built from (gregs index; -1 for an absolute address) and
 * the scale it is taken at, and for the moves done here (an absolute address) the opcode
 * (0x1xx for 0x0f xx), the ModRM reg field, REX, an operand-size prefix and the length. */
/* The general registers in the order of x86's register numbers. */
static const int gregs[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                              REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

struct decoded {
    int greg;
    unsigned scale, opcode, reg, rex, length;
    bool size16;
};

static bool decode(const uint8_t *code, struct decoded *out)
{
    unsigned at = 0, rex = 0;
    bool size16 = false;
    for (;; at++) { /* legacy prefixes */
        uint8_t byte = code[at];
        if (byte == 0x64 || byte == 0x65 || at == 14)
            return false; /* fs or gs: another address space */
        if (byte == 0x66)
            size16 = true;
        else if (!(byte == 0x67 || byte == 0xf2 || byte == 0xf3 || byte == 0xf0 || byte == 0x2e ||
                   byte == 0x36 || byte == 0x3e || byte == 0x26))
            break;
    }
    if ((code[at] & 0xf0) == 0x40)
        rex = code[at++];
    unsigned opcode = code[at++];
    if (opcode == 0xc4 || opcode == 0xc5 || opcode == 0x62 || (opcode >= 0xa0 && opcode <= 0xaf) ||
        opcode == 0xd7 || (opcode >= 0x50 && opcode <= 0x5f))
        return false; /* VEX/EVEX, moffs, string operations, xlat, push/pop: no ModRM */
    if (opcode == 0x0f) {
        opcode = 0x100 | code[at++];
        if (opcode == 0x138 || opcode == 0x13a)
            at++;
    }
    uint8_t modrm = code[at++];
    unsigned mod = modrm >> 6, rm = modrm & 7;
    if (mod == 3 || (mod == 0 && rm == 5))
        return false; /* a register, or RIP-relative */
    *out = (struct decoded){.greg = -1, .scale = 1, .opcode = opcode, .rex = rex,
                            .reg = ((modrm >> 3) & 7) | (rex & 4) << 1, .size16 = size16};
    if (rm != 4) {
        out->greg = gregs[rm | (rex & 1) << 3];
        return true;
    }
    uint8_t sib = code[at++];
    unsigned base = (sib & 7) | (rex & 1) << 3, index = ((sib >> 3) & 7) | (rex & 2) << 2;
    if (!((sib & 7) == 5 && mod == 0)) {
        out->greg = gregs[base];
        return true;
    }
    out->length = at + 4; /* disp32 */
    if (index != 4) {
        out->greg = gregs[index];
        out->scale = 1u << (sib >> 6);
    }
    return true;
}

/* A move at an absolute address (a load or store through a constant null pointer, which has
 * no register to move) done here on WRAM: false for any other instruction. */
static bool move_absolute(ucontext_t *context, const struct decoded *op, uint8_t *wram)
{
    greg_t *gr = context->uc_mcontext.gregs;
    greg_t *reg = &gr[gregs[op->reg]];
    unsigned width = op->rex & 8 ? 8 : op->size16 ? 2 : 4;
    uint64_t value = 0;
    switch (op->opcode) {
    case 0x8b: /* mov r, m */
        memcpy(&value, wram, width);
        if (width == 2)
            value = ((uint64_t)*reg & ~0xffffull) | value;
        break;
    case 0x1b6: value = wram[0]; break;                                 /* movzx r, m8 */
    case 0x1b7: value = (uint16_t)(wram[0] | wram[1] << 8); break;      /* movzx r, m16 */
    case 0x1be: value = (uint64_t)(int64_t)(int8_t)wram[0]; break;     /* movsx r, m8 */
    case 0x1bf: value = (uint64_t)(int64_t)(int16_t)(wram[0] | wram[1] << 8); break;
    case 0x89: /* mov m, r */
        memcpy(wram, reg, width);
        gr[REG_RIP] += op->length;
        return true;
    case 0xc6: /* mov m8, imm8 */
        if (op->reg != 0)
            return false;
        wram[0] = ((const uint8_t *)gr[REG_RIP])[op->length];
        gr[REG_RIP] += op->length + 1;
        return true;
    case 0xc7: { /* mov m, imm16/imm32 (sign-extended to 64 bits with REX.W) */
        if (op->reg != 0)
            return false;
        unsigned immediate = width == 2 ? 2 : 4;
        int32_t imm32 = 0;
        int16_t imm16 = 0;
        const uint8_t *bytes = (const uint8_t *)gr[REG_RIP] + op->length;
        if (immediate == 2)
            memcpy(&imm16, bytes, 2), value = (uint64_t)(int64_t)imm16;
        else
            memcpy(&imm32, bytes, 4), value = (uint64_t)(int64_t)imm32;
        memcpy(wram, &value, width);
        gr[REG_RIP] += op->length + immediate;
        return true;
    }
    default:
        return false;
    }
    if (width == 4 && op->opcode >= 0x1b6)
        value &= 0xffffffffull;
    *reg = (greg_t)value;
    gr[REG_RIP] += op->length;
    return true;
}

bool __dpurt_low_address_access(const void *address, void *context)
{
    uintptr_t at = (uintptr_t)address;
    ucontext_t *interrupted = context;
    uintptr_t pc = (uintptr_t)interrupted->uc_mcontext.gregs[REG_RIP];
    if (at >= 0x10000 || wram_bytes == 0 || __dpurt_stepping || !__dpurt_in_program_text(pc))
        return false;
    struct dpurt_location where = {.function = "", .file = "?", .line = 0};
    __dpurt_locate_pc(pc, &where);
    const char *what = at < 8 ? "a load or store through a null pointer"
                              : "a load or store through a stray pointer";
    if (__dpurt.strict)
        __dpurt_fault_at(&where,
                         "%s (address 0x%04lx): on a DPU this is a WRAM access at 0x%04lx%s", what,
                         (unsigned long)at, (unsigned long)at,
                         at < 8 ? ", where the runtime keeps an 8-byte zero" : "");
    if (at + 8 > wram_bytes)
        __dpurt_fault_at(&where,
                         "%s (address 0x%04lx): on a DPU this is a WRAM access at 0x%04lx, past the "
                         "program's variables, where the emulator's WRAM is laid out differently",
                         what, (unsigned long)at, (unsigned long)at);
    struct decoded op;
    if (!decode((const uint8_t *)pc, &op))
        return false;
    if (op.greg < 0 && !move_absolute(interrupted, &op, (uint8_t *)(wram_start + at)))
        return false;
    if (at < 8)
        __dpurt_warn_once_at("null-pointer", &where,
                             "%s (address 0x%04lx) reaches WRAM 0..7, as on a DPU, where the SDK's "
                             "runtime keeps an 8-byte zero (a read gives 0)",
                             what, (unsigned long)at);
    else
        __dpurt_warn_once_at("stray-pointer", &where,
                             "%s (address 0x%04lx, a DPU WRAM address, not one of the emulator's "
                             "pointers) reaches WRAM at 0x%04lx, as on a DPU; the emulator lays "
                             "WRAM out as the DPU does only for its first 8 bytes",
                             what, (unsigned long)at, (unsigned long)at);
    if (op.greg < 0)
        return true; /* done above */
    moved_register = op.greg;
    moved_by = (greg_t)(wram_start / op.scale);
    interrupted->uc_mcontext.gregs[op.greg] += moved_by;
    moved_from = interrupted->uc_mcontext.gregs[op.greg];
    __dpurt_stepping = 1;
    interrupted->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
    return true;
}

bool __dpurt_step_done(void *context)
{
    if (!__dpurt_stepping)
        return false;
    ucontext_t *stepped_context = context;
    /* Put the moved register back, unless the instruction itself wrote it (a load into
     * its own base register). */
    if (moved_register >= 0 && stepped_context->uc_mcontext.gregs[moved_register] == moved_from)
        stepped_context->uc_mcontext.gregs[moved_register] -= moved_by;
    moved_register = -1;
    for (unsigned i = 0; i < nr_stepped; i++)
        reserve(stepped[i], PAGE);
    nr_stepped = 0;
    __dpurt_stepping = 0;
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
    return true;
}
