/* The handler of SIGINT and SIGTERM (gen/base/interrupt.h). */
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

/* Only async-signal-safe calls: unlink (in fs_remove_temps), write, _exit. */
static void on_signal(int sig)
{
    fs_remove_temps();
    const char *msg = sig == SIGINT
                          ? "\ntmcml: interrupted (SIGINT): no file was left half-written\n"
                          : "\ntmcml: terminated (SIGTERM): no file was left half-written\n";
    ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
    (void)ignored;
    _exit(128 + sig);
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
