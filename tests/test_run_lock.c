/* driver/run_lock.c: one writer per output.  A lock held by another
 * process (a child here) refuses the probe and the take with a message
 * naming that process; released, the file is gone and the lock free; a
 * stale file (its holder killed) is taken over. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fs.h"
#include "run_lock.h"

/* A child that holds path's lock (through run_lock_take, or with a bare
 * fcntl and no note when bare) until told to release it. */
static pid_t hold_in_child(const char *path, bool bare, int *release_fd)
{
    int ready[2], release[2];
    if (pipe(ready) != 0 || pipe(release) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        run_lock lk = {.fd = -1};
        tm_error err = {0};
        bool ok;
        if (bare) {
            int fd = open(path, O_RDWR | O_CREAT, 0666);
            struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            ok = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0;
        } else {
            ok = run_lock_take(&lk, path, "child.mco", &err);
        }
        char c = ok ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(release[0], &c, 1) != 1)
            _exit(2);
        run_lock_release(&lk);
        _exit(0);
    }
    char c = 'n';
    if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y')
        return -1;
    close(ready[0]);
    close(ready[1]);
    close(release[0]);
    *release_fd = release[1];
    return pid;
}

static void release_child(pid_t pid, int release_fd)
{
    char c = 'r';
    CHECK(write(release_fd, &c, 1) == 1);
    close(release_fd);
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    char dir[] = "/tmp/tmcml_test_run_lock.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256], want[128];
    snprintf(path, sizeof path, "%s/o.lock", dir);
    tm_error err = {0};
    run_lock lk;

    /* Held by another process: refused, naming it, its host and start. */
    int release_fd;
    pid_t child = hold_in_child(path, false, &release_fd);
    CHECK(child > 0);
    snprintf(want, sizeof want, "o.mco is being written by process %ld on ", (long)child);
    CHECK(!run_lock_free(path, "o.mco", &err));
    CHECK_CONTAINS(err.message, want);
    CHECK_CONTAINS(err.message, "(started 20");
    CHECK_CONTAINS(err.message, "give this run another output name");
    memset(&err, 0, sizeof err);
    CHECK(!run_lock_take(&lk, path, "o.mco", &err));
    CHECK_CONTAINS(err.message, want);
    CHECK(lk.fd < 0);
    /* Released: its file is gone, the lock ours, with our note. */
    release_child(child, release_fd);
    CHECK(access(path, F_OK) != 0);
    CHECK(run_lock_free(path, "o.mco", &err));
    CHECK(run_lock_take(&lk, path, "o.mco", &err) && lk.fd >= 0);
    char *note = fs_read_text(path, NULL, &err);
    char pid_line[64];
    snprintf(pid_line, sizeof pid_line, "pid %ld\nhost ", (long)getpid());
    CHECK(note && strncmp(note, pid_line, strlen(pid_line)) == 0);
    free(note);
    run_lock_release(&lk);
    CHECK(access(path, F_OK) != 0);

    /* Held with no note yet (just taken): the kernel's pid. */
    child = hold_in_child(path, true, &release_fd);
    CHECK(child > 0);
    snprintf(want, sizeof want, "o.mco is being written by process %ld on this or another host",
             (long)child);
    CHECK(!run_lock_take(&lk, path, "o.mco", &err));
    CHECK_CONTAINS(err.message, want);
    release_child(child, release_fd);

    /* A stale file (its holder killed with -9: still there, unlocked). */
    CHECK(access(path, F_OK) == 0);
    CHECK(run_lock_free(path, "o.mco", &err));
    CHECK(run_lock_take(&lk, path, "o.mco", &err) && lk.fd >= 0);
    run_lock_release(&lk);
    CHECK(access(path, F_OK) != 0);

    /* A directory that cannot hold it: said. */
    snprintf(path, sizeof path, "%s/missing/o.lock", dir);
    CHECK(!run_lock_take(&lk, path, "o.mco", &err));
    CHECK_CONTAINS(err.message, "cannot make the lock file");
    rmdir(dir);
    return check_summary("run_lock");
}
