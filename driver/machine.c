#include "machine.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tm_limits.h"

/* Digits of a fraction that are read: beyond them no byte count changes. */
#define MACHINE_FRACTION_DIGITS 18

bool machine_parse_bytes(const char *text, uint64_t *bytes)
{
    const char *p = text;
    unsigned __int128 whole = 0, fraction = 0, scale = 1;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        whole = whole * 10 + (unsigned)(*p - '0');
        if (whole > UINT64_MAX)
            return false;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        for (int digits = 0; isdigit((unsigned char)*p); p++, digits++)
            if (digits < MACHINE_FRACTION_DIGITS) {
                fraction = fraction * 10 + (unsigned)(*p - '0');
                scale *= 10;
            }
    }
    int shift = 0;
    const char *units = "KMGT", *u = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
    if (u) {
        shift = 10 * (int)(u - units + 1);
        p++;
        if (p[0] == 'i' && p[1] == 'B')
            p += 2;
        else if (p[0] == 'B')
            p++;
    } else if (*p == 'B') {
        p++;
    }
    if (*p)
        return false;
    unsigned __int128 total = (whole << shift) + ((fraction << shift) / scale);
    if (total > UINT64_MAX)
        return false;
    *bytes = (uint64_t)total;
    return true;
}

const char *machine_format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1024;
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    snprintf(buf, size, "%.1f %s", v, units[i]);
    return buf;
}

/* A budget an environment variable sets, named after it: false with *err
 * when malformed, *set false when it is unset or empty. */
static bool env_budget(const char *name, machine_budget *out, bool *set, tm_error *err)
{
    const char *text = getenv(name);
    *set = text && *text;
    if (!*set)
        return true;
    if (machine_parse_bytes(text, &out->bytes)) {
        snprintf(out->source, sizeof out->source, "%s", name);
        return true;
    }
    /* Only the start, without control bytes: a message for a terminal. */
    char shown[41];
    size_t n = 0;
    for (; text[n] && n + 1 < sizeof shown; n++)
        shown[n] = isprint((unsigned char)text[n]) ? text[n] : '?';
    shown[n] = '\0';
    error_set(err, NULL, 0, "%s: expected a byte count such as 4G, 512M or 1048576 (got \"%s%s\")",
              name, shown, text[n] ? "..." : "");
    return false;
}

static uint64_t share(uint64_t bytes)
{
    return (uint64_t)((unsigned __int128)bytes * RESOURCE_MEMORY_PERCENT / 100);
}

/* MemAvailable of /proc/meminfo in bytes, or false when there is none. */
static bool mem_available(uint64_t *bytes)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long long kib;
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            *bytes = (uint64_t)kib * 1024;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* ---- memory cgroups ------------------------------------------------------- */

/* The first number of a file (a cgroup's limit or usage); false when the
 * file is missing or holds none ("max": no limit). */
static bool read_number(const char *path, uint64_t *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned long long n;
    bool ok = fscanf(f, "%llu", &n) == 1;
    fclose(f);
    *v = ok ? (uint64_t)n : 0;
    return ok;
}

/* The value of KEY in a memory.stat file, or 0. */
static uint64_t read_stat(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256], name[128];
    unsigned long long v = 0, n;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%127s %llu", name, &n) == 2 && strcmp(name, key) == 0) {
            v = n;
            break;
        }
    fclose(f);
    return (uint64_t)v;
}

/* The files of one cgroup version: limit, usage, and the statistic of the
 * inactive file pages (page cache the kernel reclaims before it kills). */
typedef struct cgroup_files {
    const char *mount; /* under root: "/memory" (v1), "" (v2) */
    const char *limit, *usage, *inactive;
} cgroup_files;

static const cgroup_files cgroup_v1 = {"/memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
                                       "total_inactive_file"};
static const cgroup_files cgroup_v2 = {"", "memory.max", "memory.current", "inactive_file"};

/* The cgroup path of the memory controller in /proc/self/cgroup's text:
 * v1's "N:...memory...:/path" first, else v2's "0::/path".  False when
 * there is none. */
static bool cgroup_path(const char *proc_file, char *path, size_t size, const cgroup_files **kind)
{
    FILE *f = fopen(proc_file, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':');
        char *p = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!p)
            continue;
        *p++ = '\0';
        controllers++;
        bool v1 = false;
        char *save = NULL;
        for (char *c = strtok_r(controllers, ",", &save); c; c = strtok_r(NULL, ",", &save))
            v1 = v1 || strcmp(c, "memory") == 0;
        if (v1 || (strncmp(line, "0:", 2) == 0 && !*kind)) {
            snprintf(path, size, "%s", strcmp(p, "/") == 0 ? "" : p);
            *kind = v1 ? &cgroup_v1 : &cgroup_v2;
            found = v1;
        }
    }
    fclose(f);
    return *kind != NULL;
}

/* What one cgroup directory leaves: its limit less its usage (less the
 * inactive file pages); false when it sets no limit. */
/* A cgroup directory under root, and a file in it. */
#define CGROUP_DIR_MAX  (2 * PATH_MAX + 32)
#define CGROUP_FILE_MAX (CGROUP_DIR_MAX + 32)

static bool cgroup_level(const char *dir, const cgroup_files *k, uint64_t *free_bytes,
                         uint64_t *limit, uint64_t *used)
{
    char file[CGROUP_FILE_MAX];
    snprintf(file, sizeof file, "%s/%s", dir, k->limit);
    if (!read_number(file, limit))
        return false;
    snprintf(file, sizeof file, "%s/%s", dir, k->usage);
    read_number(file, used);
    snprintf(file, sizeof file, "%s/memory.stat", dir);
    uint64_t inactive = read_stat(file, k->inactive);
    *used = *used > inactive ? *used - inactive : 0;
    *free_bytes = *limit > *used ? *limit - *used : 0;
    return true;
}

bool machine_cgroup_memory(const char *root, uint64_t *bytes, char *what, size_t size)
{
    char proc_file[PATH_MAX], path[PATH_MAX], dir[CGROUP_DIR_MAX];
    const cgroup_files *kind = NULL;
    snprintf(proc_file, sizeof proc_file, "%s/proc/self/cgroup", root);
    if (!cgroup_path(proc_file, path, sizeof path, &kind))
        return false;
    bool found = false;
    /* The process's cgroup and each above it: a batch system often limits
     * the job's and leaves the step's unlimited.  In a container without a
     * cgroup namespace the path names the host's hierarchy and the mount's
     * root is the container's own: the root level covers it. */
    for (;;) {
        uint64_t free_bytes, limit, used = 0;
        snprintf(dir, sizeof dir, "%s/sys/fs/cgroup%s%s", root, kind->mount, path);
        if (cgroup_level(dir, kind, &free_bytes, &limit, &used) &&
            (!found || free_bytes < *bytes)) {
            char l[32], u[32];
            *bytes = free_bytes;
            snprintf(what, size, "the memory cgroup's limit %s less %s in use",
                     machine_format_bytes(limit, l, sizeof l),
                     machine_format_bytes(used, u, sizeof u));
            found = true;
        }
        char *slash = strrchr(path, '/');
        if (!path[0])
            break;
        *(slash ? slash : path) = '\0';
    }
    return found;
}

bool machine_host_memory(machine_budget *out, tm_error *err)
{
    bool set;
    if (!env_budget("TMCML_MEMORY_LIMIT", out, &set, err))
        return false;
    if (set)
        return true;
    uint64_t detected, allowed;
    char what[96] = "MemAvailable", text[32];
    if (!mem_available(&detected)) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        detected = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        snprintf(what, sizeof what, "physical memory");
    }
    snprintf(what + strlen(what), sizeof what - strlen(what), " %s",
             machine_format_bytes(detected, text, sizeof text));
    /* A memory cgroup (Slurm's --mem, docker --memory) kills a process
     * beyond its limit however much the node has free. */
    const char *root = getenv("TMCML_CGROUP_ROOT");
    char cgroup[96];
    if (machine_cgroup_memory(root ? root : "", &allowed, cgroup, sizeof cgroup) &&
        allowed < detected) {
        detected = allowed;
        snprintf(what, sizeof what, "%s", cgroup);
    }
    out->bytes = share(detected);
    snprintf(out->source, sizeof out->source, "%d %% of %s", RESOURCE_MEMORY_PERCENT, what);
    return true;
}

bool machine_gpu_memory(uint64_t free_bytes, machine_budget *out, tm_error *err)
{
    bool set;
    if (!env_budget("TMCML_GPU_MEMORY_LIMIT", out, &set, err))
        return false;
    if (set)
        return true;
    char text[32];
    out->bytes = share(free_bytes);
    snprintf(out->source, sizeof out->source, "%d %% of the GPU's free %s", RESOURCE_MEMORY_PERCENT,
             machine_format_bytes(free_bytes, text, sizeof text));
    return true;
}

bool machine_disk_space(const char *dir, machine_budget *out, uint64_t *device, tm_error *err)
{
    struct stat st;
    struct statvfs vfs;
    if (stat(dir, &st) != 0 || statvfs(dir, &vfs) != 0) {
        error_set(err, dir, 0, "cannot tell the free space: %s", strerror(errno));
        return false;
    }
    *device = (uint64_t)st.st_dev;
    bool set;
    if (!env_budget("TMCML_DISK_LIMIT", out, &set, err))
        return false;
    if (set)
        return true;
    out->bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    snprintf(out->source, sizeof out->source, "the free space of its file system");
    return true;
}
