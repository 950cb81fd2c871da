/* Runs a fuzz harness (tests/fuzz/fuzz_*.c) over files, without libFuzzer:
 * the ctest replay of the checked-in corpus and of the inputs of fixed
 * crashes (tests/data/fuzz/), in every build and with any compiler.
 *   replay_HARNESS PATH...   (a file, or a directory whose files are run)
 * A failed check aborts, as under libFuzzer.  A directory that does not
 * exist is passed over; at least one input must have run. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, size = 0;
    unsigned char *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap) {
            unsigned char *p = realloc(data, cap *= 2);
            if (!p)
                free(data);
            data = p;
        }
    }
    if (!data || ferror(f)) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(2);
    }
    fclose(f);
    printf("%s\n", path);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

static int names_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        exit(2);
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **p = realloc(names, (count + 1) * sizeof *names);
        if (!p || !(p[count] = strdup(e->d_name)))
            exit(2);
        names = p;
        count++;
    }
    closedir(d);
    qsort(names, count, sizeof *names, names_order);
    int runs = 0;
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            runs += run_file(path);
        free(names[i]);
    }
    free(names);
    return runs;
}

int main(int argc, char **argv)
{
    int runs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            if (errno == ENOENT)
                continue;
            perror(argv[i]);
            return 2;
        }
        runs += S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
    }
    printf("%d inputs replayed\n", runs);
    return runs > 0 ? 0 : 1;
}
