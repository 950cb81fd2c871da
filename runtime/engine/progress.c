#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

/* A run shorter than this never shows a line: it would only flicker. */
#define PROGRESS_QUIET_SECONDS    1.0
#define PROGRESS_INTERVAL_SECONDS 0.5

void progress_start(progress_meter *p, bool enabled, uint64_t total, const char *label)
{
    p->enabled = enabled && isatty(fileno(stderr));
    p->total = total;
    atomic_store(&p->done, 0);
    p->start = clock_now();
    atomic_store(&p->last_print, p->start);
    atomic_store(&p->printing, 0);
    p->printed = false;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

static void format_duration(char *buf, size_t size, double seconds)
{
    if (seconds < 0 || seconds > 1e8)
        snprintf(buf, size, "?");
    else if (seconds < 60)
        snprintf(buf, size, "%.0fs", seconds);
    else if (seconds < 3600)
        snprintf(buf, size, "%dm%02ds", (int)(seconds / 60), (int)seconds % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)(seconds / 3600), (int)(seconds / 60) % 60);
}

static void print_line(progress_meter *p, uint64_t done, double now)
{
    double elapsed = now - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    char eta[32];
    format_duration(eta, sizeof eta, rate > 0 ? (double)(p->total - done) / rate : -1);
    fprintf(stderr, "\r%s%llu / %llu photons (%.1f%%), %.3g photons/s, ETA %s   ", p->label,
            (unsigned long long)done, (unsigned long long)p->total,
            p->total ? 100.0 * (double)done / (double)p->total : 100.0, rate, eta);
    fflush(stderr);
    p->printed = true;
}

void progress_add(progress_meter *p, uint64_t photons)
{
    if (!p)
        return;
    uint64_t done = atomic_fetch_add(&p->done, photons) + photons;
    if (!p->enabled)
        return;
    double now = clock_now();
    if (now - p->start < PROGRESS_QUIET_SECONDS ||
        now - atomic_load(&p->last_print) < PROGRESS_INTERVAL_SECONDS)
        return;
    /* Only one thread prints; the others carry on simulating. */
    int expected = 0;
    if (!atomic_compare_exchange_strong(&p->printing, &expected, 1))
        return;
    atomic_store(&p->last_print, now);
    print_line(p, done, now);
    atomic_store(&p->printing, 0);
}

void progress_finish(progress_meter *p)
{
    if (!p || !p->enabled || !p->printed)
        return;
    print_line(p, atomic_load(&p->done), clock_now());
    fputc('\n', stderr);
}
