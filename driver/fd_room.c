/* Room for the descriptors of `tmcml run` (fd_room.h). */
#include "fd_room.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

/* Descriptors probed one by one where /proc cannot be read: enough for any
 * process that did not open thousands before the budget. */
#define FD_ROOM_PROBE 65536

/* The soft limit, or FD_ROOM_TABLE when it cannot be read. */
static rlim_t soft_limit(void)
{
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur == RLIM_INFINITY)
        return FD_ROOM_TABLE;
    return l.rlim_cur;
}

static void raise_limit(void)
{
    struct rlimit l;
    if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= l.rlim_max)
        return;
    l.rlim_cur = l.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &l); /* refused: the limit stays, runs are split */
}

/* A descriptor placed at the table's last wanted slot grows the table; it
 * is closed at once, and the table keeps its size. */
static void grow_table(int entries)
{
    for (int fd = 0; fd <= 2; fd++) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, entries - 1);
        if (high >= 0) {
            close(high);
            return;
        }
    }
}

void fd_room_prepare(void)
{
    raise_limit();
    rlim_t limit = soft_limit();
    grow_table(limit < FD_ROOM_TABLE ? (int)limit : FD_ROOM_TABLE);
}

/* The descriptors open now: /proc/self/fd's entries (less the one that
 * reads them), else a probe of each number below the limit. */
static rlim_t open_now(rlim_t limit)
{
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        rlim_t n = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            n += e->d_name[0] != '.';
        closedir(d);
        return n > 0 ? n - 1 : 0;
    }
    rlim_t n = 0, top = limit < FD_ROOM_PROBE ? limit : FD_ROOM_PROBE;
    for (rlim_t fd = 0; fd < top; fd++)
        n += fcntl((int)fd, F_GETFD) != -1;
    return n;
}

bool fd_room_budget(int queues, int max_writers, fd_budget *b, tm_error *err)
{
    rlim_t limit = soft_limit(), used = open_now(limit);
    rlim_t free = limit > used ? limit - used : 0;
    rlim_t margin = free / 4 < FD_ROOM_MARGIN ? free / 4 : FD_ROOM_MARGIN;
    rlim_t left = free - margin, per_queue = (rlim_t)FD_ROOM_PER_WRITER * (rlim_t)queues;
    /* The writers take at most a quarter of what is left, one each at least. */
    rlim_t writers = left / (4 * per_queue);
    writers = writers < 1 ? 1 : writers > (rlim_t)max_writers ? (rlim_t)max_writers : writers;
    if (left < writers * per_queue + 1) {
        error_set(err, NULL, 0,
                  "%llu open files allowed (ulimit -n) and %llu open: too few to lock and write "
                  "even one run (%d are needed): raise the limit",
                  (unsigned long long)limit, (unsigned long long)used,
                  (int)(used + margin + writers * per_queue + 1));
        return false;
    }
    rlim_t runs = left - writers * per_queue;
    b->runs = runs > 1000000 ? 1000000 : (int)runs;
    b->writers = (int)writers;
    return true;
}
