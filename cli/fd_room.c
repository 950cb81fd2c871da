/* Room for the descriptors of `tmcml run` (fd_room.h). */
#include "fd_room.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

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

int fd_room_runs(void)
{
    rlim_t limit = soft_limit();
    rlim_t reserve = limit / 2 < FD_ROOM_RESERVE ? limit / 2 : FD_ROOM_RESERVE;
    rlim_t runs = limit - reserve;
    return runs > 1000000 ? 1000000 : runs < 1 ? 1 : (int)runs;
}
