/* The handler of SIGINT and SIGTERM (gen/base/interrupt.h). */
#include "interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t graceful;

static const char *signal_words(int sig)
{
    return sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)";
}

/* Only async-signal-safe calls: unlink (in fs_remove_temps), write, _exit. */
static void on_signal(int sig)
{
    if (graceful && !stop_signal) {
        stop_signal = sig;
        const char *msg = sig == SIGINT ? "\ntmcml: interrupted (SIGINT): finishing the photons "
                                          "in flight, then writing a checkpoint (again: quit "
                                          "now)\n"
                                        : "\ntmcml: terminated (SIGTERM): finishing the photons "
                                          "in flight, then writing a checkpoint\n";
        ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
        (void)ignored;
        return;
    }
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

void interrupt_graceful(bool on) { graceful = on; }

const volatile sig_atomic_t *interrupt_flag(void) { return &stop_signal; }

int interrupt_requested(void) { return (int)stop_signal; }

void interrupt_exit(int sig, const char *kept)
{
    fs_remove_temps();
    fprintf(stderr, "tmcml: %s: %s\n", signal_words(sig), kept);
    exit(128 + sig);
}
