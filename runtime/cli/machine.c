#include "machine.h"

#include <ctype.h>
#include <errno.h>
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

bool machine_host_memory(machine_budget *out, tm_error *err)
{
    bool set;
    if (!env_budget("TMCML_MEMORY_LIMIT", out, &set, err))
        return false;
    if (set)
        return true;
    uint64_t detected;
    const char *what = "MemAvailable";
    if (!mem_available(&detected)) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        detected = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        what = "physical memory";
    }
    char text[32];
    out->bytes = share(detected);
    snprintf(out->source, sizeof out->source, "%d %% of %s %s", RESOURCE_MEMORY_PERCENT, what,
             machine_format_bytes(detected, text, sizeof text));
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
