/* elf.c: reads what the host needs from a DPU program built for the emulator: its
 * symbols (as DPU addresses), its WRAM segment, its initial MRAM content and its
 * number of tasklets. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* A DPU program built for the emulator: x86-64 code in the DPU's 32-bit data model
 * (an x32 image, ELFCLASS32), linked by toolchain/dpu.ld. */
#define HOST_MACHINE EM_X86_64

#define NR_TASKLETS_SYMBOL "__pyupmem_nr_tasklets"
#define STACK_SIZES_SYMBOL "__pyupmem_stack_sizes" /* one word per tasklet, 24 */
#define MAX_TASKLETS 24

/* e_machine of a binary built for the DPU by the SDK's compiler (UPMEM's LLVM). */
#define ELF_MACHINE_DPU 245

/* A binary of the SDK's compiler is the commonest invalid file: the status stays
 * DPU_ERR_ELF_INVALID_FILE (as the SDK's libdpu says for a foreign ELF), and stderr says
 * what it is and how to rebuild it, since a C host has no other channel. */
static void explain_dpu_binary(const uint8_t *image, size_t size)
{
    const Elf32_Ehdr *header = (const Elf32_Ehdr *)image;
    if (size < sizeof(*header) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_machine != ELF_MACHINE_DPU)
        return;
    const char *quiet = getenv("PYUPMEM_EMU_QUIET");
    if (quiet != NULL && *quiet != '\0' && strcmp(quiet, "0") != 0)
        return;
    fprintf(stderr, "pyupmem emulator: dpu_load: this is a DPU binary built by the UPMEM SDK's "
                    "compiler (ELF machine EM_DPU): the emulator runs DPU programs built for this "
                    "host. Rebuild it from its source with the emulator's dpu-upmem-dpurte-clang "
                    "(eval \"$(python -m pyupmem env)\" puts it on PATH) or "
                    "pyupmem.build_program\n");
}

static int inside(size_t size, uint64_t offset, uint64_t length)
{
    return offset <= size && length <= size - offset;
}

/* The file offset of the `length` bytes of a symbol the binary stores (its section's
 * offset plus its place in the section); 0 when they are not all in the file. */
static uint64_t stored_bytes(size_t size, const Elf32_Shdr *sections, const Elf32_Sym *symbol,
                             uint64_t length)
{
    const Elf32_Shdr *section = &sections[symbol->st_shndx];
    uint64_t offset = section->sh_offset + (symbol->st_value - section->sh_addr);
    return section->sh_type == SHT_PROGBITS && inside(size, offset, length) ? offset : 0;
}

static int by_name(const void *a, const void *b)
{
    const struct emu_symbol *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* Same names: global definitions first, so that deduplication keeps them. */
static int by_name_then_binding(const void *a, const void *b)
{
    const struct emu_symbol *x = a, *y = b;
    int order = strcmp(x->name, y->name);
    return order != 0 ? order : (int)x->local - (int)y->local;
}

const struct emu_symbol *emu_find_symbol(const struct dpu_program_t *program, const char *name)
{
    struct emu_symbol key = {.name = (char *)name};
    return bsearch(&key, program->symbols, program->nr_symbols, sizeof(key), by_name);
}

static dpu_error_t read_wram_segment(const uint8_t *image, size_t size, const Elf32_Ehdr *header,
                                     struct dpu_program_t *program)
{
    if (!inside(size, header->e_phoff, (uint64_t)header->e_phnum * sizeof(Elf32_Phdr)))
        return DPU_ERR_ELF_INVALID_FILE;
    const Elf32_Phdr *phdrs = (const Elf32_Phdr *)(image + header->e_phoff);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < header->e_phnum; i++) {
        const Elf32_Phdr *phdr = &phdrs[i];
        if (phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_W))
            continue;
        if (phdr->p_vaddr >= EMU_MRAM_BASE && phdr->p_vaddr < (uint64_t)EMU_MRAM_BASE + EMU_MRAM_SIZE)
            continue;
        if (phdr->p_vaddr < EMU_MRAM_BASE && phdr->p_vaddr + phdr->p_memsz > EMU_MRAM_BASE)
            continue;
        /* The last writable segment is WRAM (toolchain/dpu.ld puts the emulator's own
         * words in the one before). */
        program->wram_vaddr = phdr->p_vaddr & ~(page - 1);
        program->wram_stride =
            ((phdr->p_vaddr + phdr->p_memsz + page - 1) & ~(page - 1)) - program->wram_vaddr;
    }
    return program->wram_stride > 0 ? DPU_OK : DPU_ERR_ELF_INVALID_FILE;
}

dpu_error_t emu_read_program(const uint8_t *image, size_t size, struct dpu_program_t *program)
{
    const Elf32_Ehdr *header = (const Elf32_Ehdr *)image;
    if (size < sizeof(*header) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS32 || header->e_machine != HOST_MACHINE ||
        header->e_type != ET_EXEC || header->e_shentsize != sizeof(Elf32_Shdr) ||
        !inside(size, header->e_shoff, (uint64_t)header->e_shnum * sizeof(Elf32_Shdr)) ||
        header->e_shstrndx >= header->e_shnum) {
        explain_dpu_binary(image, size);
        return DPU_ERR_ELF_INVALID_FILE;
    }
    dpu_error_t status = read_wram_segment(image, size, header, program);
    if (status != DPU_OK)
        return status;

    const Elf32_Shdr *sections = (const Elf32_Shdr *)(image + header->e_shoff);
    const Elf32_Shdr *names = &sections[header->e_shstrndx];
    const Elf32_Shdr *symtab = NULL;
    for (int i = 0; i < header->e_shnum; i++) {
        const Elf32_Shdr *section = &sections[i];
        if (section->sh_type == SHT_SYMTAB || (section->sh_type == SHT_DYNSYM && symtab == NULL))
            symtab = section;
        if (names->sh_offset + section->sh_name >= size)
            return DPU_ERR_ELF_INVALID_FILE;
        const char *name = (const char *)image + names->sh_offset + section->sh_name;
        if (strcmp(name, ".rodata") == 0 || strcmp(name, ".data") == 0 || strcmp(name, ".bss") == 0)
            program->wram_needed += (uint32_t)section->sh_size;
        if (strcmp(name, "dpu_mram") == 0 && section->sh_type == SHT_PROGBITS && section->sh_size > 0) {
            if (section->sh_addr != EMU_MRAM_BASE || section->sh_size > EMU_MRAM_SIZE ||
                !inside(size, section->sh_offset, section->sh_size))
                return DPU_ERR_ELF_INVALID_FILE;
            program->mram_image = malloc(section->sh_size);
            memcpy(program->mram_image, image + section->sh_offset, section->sh_size);
            program->mram_image_size = (uint32_t)section->sh_size;
        }
    }
    if (symtab == NULL || symtab->sh_link >= header->e_shnum ||
        !inside(size, symtab->sh_offset, symtab->sh_size))
        return DPU_ERR_ELF_INVALID_FILE;
    const Elf32_Shdr *strtab = &sections[symtab->sh_link];
    const Elf32_Sym *symbols = (const Elf32_Sym *)(image + symtab->sh_offset);
    size_t count = symtab->sh_size / sizeof(Elf32_Sym);
    program->symbols = calloc(count + 1, sizeof(struct emu_symbol));
    bool found_tasklets = false;
    uint64_t stack_sizes = 0; /* file offset of the stack sizes' words, 0: none */
    uint64_t wram_end = program->wram_vaddr + program->wram_stride;
    uint64_t mram_end = (uint64_t)EMU_MRAM_BASE + EMU_MRAM_SIZE;
    for (size_t i = 0; i < count; i++) {
        const Elf32_Sym *symbol = &symbols[i];
        if (symbol->st_name == 0 || symbol->st_shndx == SHN_UNDEF ||
            strtab->sh_offset + symbol->st_name >= size)
            continue;
        const char *name = (const char *)image + strtab->sh_offset + symbol->st_name;
        int type = ELF32_ST_TYPE(symbol->st_info);
        if (strcmp(name, NR_TASKLETS_SYMBOL) == 0 && symbol->st_shndx < header->e_shnum) {
            uint64_t offset = stored_bytes(size, sections, symbol, 4);
            if (offset == 0)
                return DPU_ERR_ELF_INVALID_FILE;
            memcpy(&program->nr_tasklets, image + offset, 4);
            found_tasklets = true;
            continue;
        }
        if (strcmp(name, STACK_SIZES_SYMBOL) == 0 && symbol->st_shndx < header->e_shnum) {
            stack_sizes = stored_bytes(size, sections, symbol, 4 * MAX_TASKLETS);
            continue;
        }
        uint32_t address, sym_size = (uint32_t)symbol->st_size;
        if (strcmp(name, DPU_MRAM_HEAP_POINTER_NAME) == 0) {
            address = (uint32_t)symbol->st_value;
            sym_size = (uint32_t)(mram_end - symbol->st_value);
        } else if (type != STT_OBJECT) {
            continue;
        } else if (symbol->st_value >= EMU_MRAM_BASE && symbol->st_value < mram_end) {
            address = (uint32_t)symbol->st_value;
        } else if (symbol->st_value >= program->wram_vaddr && symbol->st_value < wram_end) {
            address = (uint32_t)(symbol->st_value - program->wram_vaddr);
        } else {
            continue; /* read-only data: not in the DPU's WRAM image */
        }
        struct emu_symbol *entry = &program->symbols[program->nr_symbols++];
        entry->name = strdup(name);
        entry->address = address;
        entry->size = sym_size;
        entry->local = ELF32_ST_BIND(symbol->st_info) == STB_LOCAL;
    }
    qsort(program->symbols, program->nr_symbols, sizeof(struct emu_symbol), by_name_then_binding);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < program->nr_symbols; i++) {
        if (kept > 0 && strcmp(program->symbols[kept - 1].name, program->symbols[i].name) == 0) {
            free(program->symbols[i].name);
            continue;
        }
        program->symbols[kept++] = program->symbols[i];
    }
    program->nr_symbols = kept;
    if (!found_tasklets)
        return DPU_ERR_ELF_INVALID_FILE;
    for (uint32_t t = 0; stack_sizes != 0 && t < program->nr_tasklets && t < MAX_TASKLETS; t++) {
        uint32_t stack;
        memcpy(&stack, image + stack_sizes + 4 * t, 4);
        program->wram_stacks += (stack + 7) & ~7u;
    }
    program->wram_needed += program->wram_stacks;
    return DPU_OK;
}
