/* Paths as text (base/path_name.h). */
#include "path_name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fs_dir_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

bool fs_name_leaves_dir(const char *name)
{
    if (name[0] == '/')
        return true;
    int depth = 0;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n > 0 && !(n == 1 && p[0] == '.'))
            depth++;
        p += n + strspn(p + n, "/");
    }
    return false;
}

char *fs_join(const char *dir, const char *name)
{
    if (!dir || !dir[0] || name[0] == '/')
        return strdup(name);
    size_t dl = strlen(dir);
    bool slash = dir[dl - 1] == '/';
    size_t size = dl + strlen(name) + 2;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "%s%s%s", dir, slash ? "" : "/", name);
    return out;
}

char *fs_sibling(const char *mco_path, const char *suffix)
{
    size_t n = strlen(mco_path), s = strlen(suffix);
    size_t stem = n >= 4 && strcmp(mco_path + n - 4, ".mco") == 0 ? n - 4 : n;
    char *p = malloc(stem + s + 1);
    if (p) {
        memcpy(p, mco_path, stem);
        memcpy(p + stem, suffix, s + 1);
    }
    return p;
}

const char *fs_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
