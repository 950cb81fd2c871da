/* A minimal test harness: CHECK records a failure and goes on, so one run
 * shows every broken assertion; main returns check_summary(). */
#ifndef TMCML_TESTS_CHECK_H
#define TMCML_TESTS_CHECK_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* Substring check for error messages. */
#define CHECK_CONTAINS(haystack, needle)                                                           \
    CHECK_MSG(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"", (haystack),  \
              (needle))

/* Files in dir whose name holds ".tmp." (fs_write_atomic's temporaries)
 * or `also` (may be NULL); -1 when dir cannot be read. */
static inline int check_temp_files(const char *dir, const char *also)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.") || (also && strstr(e->d_name, also)))
            n++;
    closedir(d);
    return n;
}

/* A test program's cases, each run by its name (argv[1]). */
typedef struct check_case {
    const char *name;
    int (*run)(void); /* the exit status: check_summary's, 77 skipped */
} check_case;

/* The exit status of the case of cases[0 .. n) named name; for any other
 * name, usage on stderr and 2. */
static inline int check_case_run(const char *name, const check_case *cases, size_t n,
                                 const char *usage)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, cases[i].name) == 0)
            return cases[i].run();
    fputs(usage, stderr);
    return 2;
}

static inline int check_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
