/* What the libFuzzer harnesses share (tests/fuzz/README.md): a private
 * scratch directory for the files a harness writes, and a check that aborts
 * (a failed check is a bug for libFuzzer to report, with its input).
 *
 * The harnesses are plain C: built with clang and -fsanitize=fuzzer under
 * TMCML_FUZZ, and with the project's compiler into replay programs
 * (replay.c) that run the checked-in corpus and crash regressions in ctest. */
#ifndef TMCML_FUZZ_UTIL_H
#define TMCML_FUZZ_UTIL_H

#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: say which, then abort so that libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: fuzz check failed: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char fuzz_dir_path[4096];

static inline int fuzz_remove_entry(const char *path, const struct stat *st, int flag,
                                    struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static inline void fuzz_remove_dir(void)
{
    if (fuzz_dir_path[0])
        nftw(fuzz_dir_path, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A directory of this process's own under $TMPDIR (else /tmp), made on the
 * first call and removed at exit. */
static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_path[0])
        return fuzz_dir_path;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/tmcml_fuzz.XXXXXX", tmp);
    if (!mkdtemp(fuzz_dir_path)) {
        perror(fuzz_dir_path);
        abort();
    }
    atexit(fuzz_remove_dir);
    return fuzz_dir_path;
}

/* "<fuzz_dir>/name" in buf. */
static inline const char *fuzz_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", fuzz_dir(), name);
    return buf;
}

/* Writes size bytes to path (an environment failure aborts: no input causes it). */
static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* The input as a NUL-terminated string (cut at its first NUL byte, if any). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* FNV-1a of the input: a deterministic source of run parameters. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(0x100000001b3);
    return h;
}

#endif
