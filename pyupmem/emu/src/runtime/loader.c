/* loader.c: loads a DPU program into the worker. A DPU program is a 32-bit (x32) static
 * image linked at fixed addresses (toolchain/dpu.ld), with no C library of the host's: the
 * worker maps its segments at those addresses, below 4 GiB, and fills its table of the
 * emulator's functions (imports.def), through which the program calls the runtime. The
 * image's own MRAM segment is left out: the host writes it into MRAM at load. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <sem.h>

#include "runtime.h"

/* The runtime's side of the imports, in the order of imports.def. */
void *__dpurt_mram_read_unaligned(const void *from, void *buffer, unsigned int n, const char *file,
                                  int line);
void __dpurt_mram_write_unaligned(const void *from, void *dest, unsigned int n, const char *file,
                                  int line);
void __dpurt_check_mram_address(const void *mram_addr, const char *what, const char *file, int line);
void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function);

static void *const imports[] = {
#define RUNTIME(name) (void *)name,
#define RUNTIME_AS(name, function) (void *)function,
#define LEAF(name) (void *)name,
#include "imports.def"
#undef RUNTIME
#undef RUNTIME_AS
#undef LEAF
};

struct dpu_image __dpurt_image;

static int fail(char *error, size_t size, const char *what)
{
    snprintf(error, size, "%s", what);
    return -1;
}

static const Elf32_Shdr *section(const uint8_t *file, size_t length, const Elf32_Ehdr *header,
                                 unsigned index)
{
    uint64_t at = (uint64_t)header->e_shoff + (uint64_t)index * sizeof(Elf32_Shdr);
    return index < header->e_shnum && at + sizeof(Elf32_Shdr) <= length
               ? (const Elf32_Shdr *)(file + at)
               : NULL;
}

/* The value of each symbol the worker needs, from the image's symbol table. */
static int read_symbols(const uint8_t *file, size_t length, const Elf32_Ehdr *header,
                        struct dpu_image *image, char *error, size_t size)
{
    for (unsigned i = 0; i < header->e_shnum; i++) {
        const Elf32_Shdr *symtab = section(file, length, header, i);
        if (symtab == NULL || symtab->sh_type != SHT_SYMTAB)
            continue;
        const Elf32_Shdr *strtab = section(file, length, header, symtab->sh_link);
        if (strtab == NULL || (uint64_t)symtab->sh_offset + symtab->sh_size > length ||
            (uint64_t)strtab->sh_offset + strtab->sh_size > length)
            return fail(error, size, "its symbol table is damaged");
        const Elf32_Sym *symbols = (const Elf32_Sym *)(file + symtab->sh_offset);
        for (size_t j = 0; j < symtab->sh_size / sizeof(Elf32_Sym); j++) {
            if (symbols[j].st_name >= strtab->sh_size || symbols[j].st_shndx == SHN_UNDEF)
                continue;
            const char *name = (const char *)file + strtab->sh_offset + symbols[j].st_name;
            uint32_t value = symbols[j].st_value;
            struct {
                const char *name;
                uint32_t *into;
            } wanted[] = {
                {"dpu_main", &image->entry},
                {"__dpurt_import_table", &image->import_table},
                {"__dpurt_runtime_stack", &image->runtime_stack},
                {"__dpurt_instructions", &image->instructions},
                {"__dpurt_text_start", &image->text_start},
                {"__dpurt_text_end", &image->text_end},
                {"__dpurt_wram_start", &image->wram_start},
                {"__dpurt_wram_end", &image->wram_end},
                {"__pyupmem_stack_sizes", &image->stack_sizes},
                {"__pyupmem_cost_counted", &image->cost_counted},
                {"__pyupmem_flat_mram", &image->flat_mram},
            };
            for (size_t k = 0; k < sizeof(wanted) / sizeof(wanted[0]); k++)
                if (strcmp(name, wanted[k].name) == 0)
                    *wanted[k].into = value;
        }
        return 0;
    }
    return fail(error, size, "it has no symbol table");
}

int __dpurt_load_image(int fd, char *error, size_t size)
{
    struct dpu_image *image = &__dpurt_image;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end <= 0)
        return fail(error, size, "cannot read the DPU program");
    size_t length = (size_t)end;
    uint8_t *file = mmap(NULL, length, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED)
        return fail(error, size, "cannot map the DPU program");
    const Elf32_Ehdr *header = (const Elf32_Ehdr *)file;
    if (length < sizeof(*header) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS32 || header->e_machine != EM_X86_64 ||
        header->e_type != ET_EXEC ||
        (uint64_t)header->e_phoff + (uint64_t)header->e_phnum * sizeof(Elf32_Phdr) > length)
        return fail(error, size, "not a DPU program built for this emulator (an x32 image)");
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const Elf32_Phdr *phdrs = (const Elf32_Phdr *)(file + header->e_phoff);
    for (unsigned i = 0; i < header->e_phnum; i++) {
        const Elf32_Phdr *phdr = &phdrs[i];
        if (phdr->p_type != PT_LOAD || phdr->p_memsz == 0)
            continue;
        if (phdr->p_vaddr >= EMU_MRAM_BASE && phdr->p_vaddr < EMU_MRAM_BASE + EMU_MRAM_SIZE)
            continue; /* MRAM: written by the host at load */
        if ((uint64_t)phdr->p_offset + phdr->p_filesz > length || phdr->p_filesz > phdr->p_memsz)
            return fail(error, size, "a segment lies outside the file");
        uintptr_t start = phdr->p_vaddr & ~(page - 1);
        uintptr_t stop = ((uintptr_t)phdr->p_vaddr + phdr->p_memsz + page - 1) & ~(page - 1);
        void *at = mmap((void *)start, stop - start, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (at != (void *)start) {
            snprintf(error, size, "cannot map the DPU program at 0x%lx: %s", (unsigned long)start,
                     strerror(errno));
            return -1;
        }
        memcpy((void *)(uintptr_t)phdr->p_vaddr, file + phdr->p_offset, phdr->p_filesz);
        int protection = (phdr->p_flags & PF_R ? PROT_READ : 0) | (phdr->p_flags & PF_W ? PROT_WRITE : 0) |
                         (phdr->p_flags & PF_X ? PROT_EXEC : 0);
        mprotect((void *)start, stop - start, protection);
    }
    memset(image, 0, sizeof(*image));
    if (read_symbols(file, length, header, image, error, size) != 0)
        return -1;
    munmap(file, length);
    if (image->entry == 0)
        return fail(error, size, "it has no main()");
    if (image->import_table == 0 || image->runtime_stack == 0 || image->instructions == 0 ||
        image->text_end == 0 || image->wram_end == 0 || image->stack_sizes == 0)
        return fail(error, size, "it was not linked by the emulator's dpu-upmem-dpurte-clang");
    memcpy((void *)(uintptr_t)image->import_table, imports, sizeof(imports));
    return 0;
}
