/* load.c: loading a DPU program starts one zygote process for the set (the emulator's
 * dpu-worker, which loads the program itself), which forks one worker per DPU (see
 * runtime/worker.c). Loading again replaces the workers, so a faulted set becomes usable
 * again. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"

extern char **environ;

/* The descriptors a zygote receives (the host keeps its own at 10 and above). */
enum { CONTROL_FD = 3, MRAM_FD = 4, WRAM_FD = 5, PROGRAM_FD = 6 };

void emu_release_program(struct dpu_program_t *program)
{
    for (uint32_t i = 0; i < program->nr_symbols; i++)
        free(program->symbols[i].name);
    free(program->symbols);
    free(program->mram_image);
    if (program->wram != NULL)
        munmap(program->wram, program->count * program->wram_stride);
    if (program->wram_fd >= 0)
        close(program->wram_fd);
    free(program);
}

/* The worker executable, beside this library (lib/dpu-worker). */
static const char *worker_path(void)
{
    static char path[PATH_MAX];
    if (path[0] == '\0') {
        Dl_info self;
        char library[PATH_MAX];
        /* The library's real path: SDK layouts link to it (upmem/lib/libdpu.so). */
        if (dladdr((void *)worker_path, &self) == 0 || self.dli_fname == NULL ||
            realpath(self.dli_fname, library) == NULL)
            return NULL;
        const char *slash = strrchr(library, '/');
        snprintf(path, sizeof(path), "%.*s/dpu-worker", (int)(slash - library), library);
    }
    return path;
}

static dpu_error_t spawn_zygote(struct dpu_program_t *program, const char *path, int program_fd)
{
    struct emu_allocation *allocation = program->allocation;
    char control[16], mram[16], wram[16], first[16], count[16], tasklets[16], program_arg[16];
    const char *worker = worker_path();
    if (worker == NULL)
        return DPU_ERR_SYSTEM;
    snprintf(control, sizeof(control), "%d", CONTROL_FD);
    snprintf(mram, sizeof(mram), "%d", MRAM_FD);
    snprintf(wram, sizeof(wram), "%d", WRAM_FD);
    snprintf(first, sizeof(first), "%u", program->first);
    snprintf(count, sizeof(count), "%u", program->count);
    snprintf(tasklets, sizeof(tasklets), "%u", program->nr_tasklets);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, allocation->control_fd, CONTROL_FD);
    posix_spawn_file_actions_adddup2(&actions, allocation->mram_fd, MRAM_FD);
    posix_spawn_file_actions_adddup2(&actions, program->wram_fd, WRAM_FD);
    posix_spawn_file_actions_adddup2(&actions, program_fd, PROGRAM_FD);
    snprintf(program_arg, sizeof(program_arg), "%d", PROGRAM_FD);
    /* argv[0] names the program, for ps. */
    char *argv[] = {(char *)(path ? path : "dpu-program"), EMU_ZYGOTE_FLAG, control, mram, wram,
                    first, count, tasklets, program_arg, NULL};
    int error = posix_spawn(&program->zygote, worker, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
        program->zygote = 0;
        return DPU_ERR_SYSTEM;
    }
    return DPU_OK;
}

static dpu_error_t load_image(struct dpu_set_t set, const uint8_t *image, size_t size,
                              const char *path, struct dpu_program_t **program_out)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(set, &range);
    if (status != DPU_OK)
        return status;
    struct emu_allocation *allocation = range.allocation;
    for (uint32_t i = range.first; i < range.first + range.count; i++)
        if (atomic_load(&emu_slot(allocation, i)->state) == EMU_RUNNING)
            return DPU_ERR_DPU_ALREADY_RUNNING;

    struct dpu_program_t *program = calloc(1, sizeof(*program));
    if (program == NULL)
        return DPU_ERR_SYSTEM;
    program->wram_fd = -1;
    program->allocation = allocation;
    program->first = range.first;
    program->count = range.count;
    status = emu_read_program(image, size, program);
    if (status == DPU_OK && program->nr_tasklets > allocation->profile.chip->max_tasklets)
        status = DPU_ERR_TOO_MANY_TASKLETS;
    if (status == DPU_OK && program->nr_tasklets == 0)
        status = DPU_ERR_ELF_INVALID_FILE;
    const struct emu_chip *chip = allocation->profile.chip;
    if (status == DPU_OK && program->wram_needed > chip->wram_size) {
        /* Built for a larger WRAM (v1A's, by default) than this set's chip has: the build
         * checks only the chip it was built for. */
        fprintf(stderr,
                "pyupmem emulator: dpu_load: the program needs %u bytes of WRAM (%u of data and "
                "variables, %u of stacks) and a %s DPU (the profile's chipVersion) has %u: build "
                "it for that chip (-mcpu=%s, which checks its WRAM) and make it fit\n",
                program->wram_needed, program->wram_needed - program->wram_stacks,
                program->wram_stacks, chip->name, chip->wram_size, chip->name);
        status = DPU_ERR_ELF_INVALID_FILE;
    }
    if (status != DPU_OK) {
        emu_release_program(program);
        return status;
    }

    emu_stop_workers(allocation, range.first, range.count);
    /* A load writes only the program's own MRAM variables: the rest of MRAM (the heap
     * the host filled before loading) keeps its content, as on hardware. */
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        if (program->mram_image_size > 0)
            memcpy(allocation->mram + (uint64_t)i * EMU_MRAM_SIZE, program->mram_image,
                   program->mram_image_size);
        struct emu_slot *slot = emu_slot(allocation, i);
        slot->fault[0] = '\0';
        slot->log_len = 0;
        slot->log_truncated = 0;
        atomic_store(&slot->state, EMU_LOADING);
    }

    uint64_t wram_size = program->count * program->wram_stride;
    program->wram_fd = emu_memfd("pyupmem-wram", wram_size);
    if (program->wram_fd < 0 ||
        (program->wram = mmap(NULL, wram_size, PROT_READ | PROT_WRITE, MAP_SHARED, program->wram_fd,
                              0)) == MAP_FAILED) {
        program->wram = NULL;
        status = DPU_ERR_SYSTEM;
    }

    int program_fd = -1;
    if (status == DPU_OK) {
        /* The worker reads the image from an anonymous file (a load from memory has no
         * other, and the file may change on disk meanwhile). */
        program_fd = emu_memfd("pyupmem-program", 0);
        if (program_fd < 0 || write(program_fd, image, size) != (ssize_t)size)
            status = DPU_ERR_SYSTEM;
    }
    if (status == DPU_OK)
        status = spawn_zygote(program, path, program_fd);
    if (program_fd >= 0)
        close(program_fd);
    if (status != DPU_OK) {
        for (uint32_t i = range.first; i < range.first + range.count; i++)
            atomic_store(&emu_slot(allocation, i)->state, EMU_EMPTY);
        emu_release_program(program);
        return status;
    }
    program->next = allocation->programs;
    allocation->programs = program;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        allocation->dpus[i].program = program;
        allocation->dpus[i].xfer_buffer = NULL;
    }
    status = emu_wait(range, true, 0);
    if (program_out != NULL)
        *program_out = program;
    return status;
}

static dpu_error_t read_file(const char *path, uint8_t **image, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? DPU_ERR_ELF_NO_SUCH_FILE : DPU_ERR_ELF_INVALID_FILE;
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        return DPU_ERR_ELF_INVALID_FILE;
    }
    *size = (size_t)info.st_size;
    *image = malloc(*size ? *size : 1);
    size_t done = 0;
    while (done < *size) {
        ssize_t got = read(fd, *image + done, *size - done);
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    close(fd);
    if (done != *size) {
        free(*image);
        return DPU_ERR_ELF_INVALID_FILE;
    }
    return DPU_OK;
}

dpu_error_t dpu_load(struct dpu_set_t dpu_set, const char *binary_path, struct dpu_program_t **program)
{
    if (binary_path == NULL)
        return DPU_ERR_ELF_NO_SUCH_FILE;
    uint8_t *image;
    size_t size;
    dpu_error_t status = read_file(binary_path, &image, &size);
    if (status != DPU_OK)
        return status;
    status = load_image(dpu_set, image, size, binary_path, program);
    free(image);
    return status;
}

dpu_error_t dpu_load_from_memory(struct dpu_set_t dpu_set, uint8_t *buffer, size_t buffer_size,
                                 struct dpu_program_t **program)
{
    if (buffer == NULL)
        return DPU_ERR_ELF_INVALID_FILE;
    return load_image(dpu_set, buffer, buffer_size, NULL, program);
}

dpu_error_t dpu_load_from_incbin(struct dpu_set_t dpu_set, struct dpu_incbin_t *incbin,
                                 struct dpu_program_t **program)
{
    if (incbin == NULL)
        return DPU_ERR_ELF_INVALID_FILE;
    return load_image(dpu_set, incbin->buffer, incbin->size, NULL, program);
}

dpu_error_t dpu_get_symbol(struct dpu_program_t *program, const char *symbol_name,
                           struct dpu_symbol_t *symbol)
{
    if (program == NULL)
        return DPU_ERR_NO_PROGRAM_LOADED;
    const struct emu_symbol *found = symbol_name ? emu_find_symbol(program, symbol_name) : NULL;
    if (found == NULL)
        return DPU_ERR_UNKNOWN_SYMBOL;
    symbol->address = found->address;
    symbol->size = found->size;
    return DPU_OK;
}
