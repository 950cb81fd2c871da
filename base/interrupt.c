/* The handler of the signals that stop a run (base/interrupt.h). */
#include "interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t graceful;

/* Every signal that stops a run as SIGTERM does, and how it is named. */
static const struct stop_signal_name {
    int sig;
    const char *words;
} stop_signals[] = {
    {SIGINT, "interrupted (SIGINT)"},
    {SIGTERM, "terminated (SIGTERM)"},
    {SIGHUP, "hung up (SIGHUP: the terminal or ssh session closed)"},
    {SIGXCPU, "CPU time limit reached (SIGXCPU)"},
    {SIGUSR1, "asked to stop (SIGUSR1)"},
    {SIGUSR2, "asked to stop (SIGUSR2)"},
};
#define STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static const char *signal_words(int sig)
{
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        if (stop_signals[i].sig == sig)
            return stop_signals[i].words;
    return "stopped by a signal";
}

/* write(2) of a string, from the handler. */
static void say(const char *s)
{
    ssize_t ignored = write(STDERR_FILENO, s, strlen(s));
    (void)ignored;
}

/* Only async-signal-safe calls: unlink (in fs_remove_temps), write, _exit. */
static void on_signal(int sig)
{
    /* The kernel repeats SIGXCPU every CPU second past the soft limit:
     * the repeats are not a user's second request, and the hard limit's
     * SIGKILL stays the backstop. */
    if (sig == SIGXCPU && stop_signal)
        return;
    if (graceful && !stop_signal) {
        stop_signal = sig;
        say("\ntmcml: ");
        say(signal_words(sig));
        say(sig == SIGINT ? ": finishing the photons in flight, then writing a checkpoint (again: "
                            "quit now)\n"
                          : ": finishing the photons in flight, then writing a checkpoint\n");
        return;
    }
    fs_remove_temps();
    say("\ntmcml: ");
    say(signal_words(sig));
    say(": no file was left half-written\n");
    _exit(128 + sig);
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        sigaddset(&sa.sa_mask, stop_signals[i].sig);
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        sigaction(stop_signals[i].sig, &sa, NULL);
    /* A file beyond the size limit (ulimit -f) would kill the process with
     * its temp file left; ignored, the write fails with EFBIG and the writer
     * removes the temp file and says so, as for a full disk. */
    signal(SIGXFSZ, SIG_IGN);
    /* An ssh session that closes takes a `| tee log` with it: the stop
     * message (or any later line) would then raise SIGPIPE and kill the
     * run before its checkpoint.  Ignored, the write fails with EPIPE and
     * the run writes its files, which are what it is for. */
    signal(SIGPIPE, SIG_IGN);
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
