/* The directory of the program or library this code is linked into. */
#include "self_path.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file that holds this function: a shared library's name as the loader
 * found it, or, in the executable (whose link map has an empty name, and
 * whose dladdr name is only argv[0]), the kernel's link to it. */
static const char *self_path_file(self_kind *kind)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (dladdr1((void *)self_path_dir, &info, (void **)&map, RTLD_DL_LINKMAP) && map &&
        map->l_name && map->l_name[0]) {
        *kind = SELF_LIBRARY;
        return map->l_name;
    }
    *kind = SELF_PROGRAM;
    return "/proc/self/exe";
}

bool self_path_dir(char *buf, size_t size, self_kind *kind)
{
    char *real = realpath(self_path_file(kind), NULL);
    if (!real)
        return false;
    char *slash = strrchr(real, '/');
    if (slash)
        *(slash == real ? slash + 1 : slash) = '\0';
    bool fits = slash && strlen(real) < size;
    if (fits)
        snprintf(buf, size, "%s", real);
    free(real);
    return fits;
}

bool self_path_join(const char *dir, const char *rel, char *buf, size_t size)
{
    size_t n = strlen(dir);
    while (strncmp(rel, "../", 3) == 0 && n > 1) {
        while (n > 1 && dir[n - 1] != '/')
            n--;
        if (n > 1)
            n--; /* the slash, but the root's */
        rel += 3;
    }
    int len = snprintf(buf, size, "%.*s%s%s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", rel);
    return len >= 0 && (size_t)len < size;
}

bool self_path_below(const char *path, const char *dir)
{
    char *p = realpath(path, NULL), *d = realpath(dir, NULL);
    bool below = false;
    if (p && d) {
        size_t n = strlen(d);
        below = strncmp(p, d, n) == 0 && (p[n] == '\0' || p[n] == '/' || (n == 1 && d[0] == '/'));
    }
    free(p);
    free(d);
    return below;
}
