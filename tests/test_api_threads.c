/* tmcml_session_delete while other threads' calls are on the session
 * (issue 21, item 2): the run under way is cancelled and waited for, a call
 * waiting for its turn is refused, and nothing touches the freed session.
 * A use after free here is what AddressSanitizer reports in the sanitizer
 * build; the Release build crashed ("free(): corrupted unsorted chunks").
 *
 * White-box where it must be: to know that a second call is waiting for its
 * turn, the test reads the session's count of entered calls (api.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "check.h"
#include "tmcml.h"

/* A delete that waited longer than this did not cancel the run (it is
 * 2^40 photons: days). */
#define PROMPT_SECONDS 5.0

static const tmcml_layer slab = {1.37, 1.0, 100.0, 0.90, 0.1};
static const tmcml_grid grid = {0.01, 0.01, 40, 50, 1};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A long CPU run on its own thread. */
typedef struct runner {
    tmcml_session *s;
    const tmcml_problem *p;
    bool callback; /* with a progress callback: the photons on the library's thread */
    atomic_int progressed;
    tmcml_status status;
    tmcml_result *result;
    pthread_t thread;
} runner;

static int note_progress(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    atomic_store(&((runner *)user)->progressed, 1);
    return 0;
}

static void *run_main(void *arg)
{
    runner *r = arg;
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = INT64_C(1) << 40;
    opt.threads = 2;
    if (r->callback) {
        opt.progress = note_progress;
        opt.progress_user = r;
        opt.progress_interval = 0.01;
    }
    r->result = (tmcml_result *)r; /* set to NULL by the failing run */
    r->status = tmcml_run(r->s, r->p, &opt, &r->result);
    return NULL;
}

static void start(runner *r, tmcml_session *s, const tmcml_problem *p, bool callback)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->p = p;
    r->callback = callback;
    CHECK(pthread_create(&r->thread, NULL, run_main, r) == 0);
}

/* The calls entered on s (under way and waiting). */
static int calls_entered(tmcml_session *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->calls;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static bool wait_for(bool (*ready)(void *), void *arg)
{
    for (int i = 0; i < 2000 && !ready(arg); i++)
        pause_ms(5);
    return ready(arg);
}

static bool has_progressed(void *arg) { return atomic_load(&((runner *)arg)->progressed) != 0; }

typedef struct {
    tmcml_session *s;
    int calls;
} entered;

static bool has_entered(void *arg)
{
    entered *e = arg;
    return calls_entered(e->s) >= e->calls;
}

static void ended_cancelled(runner *r, const char *what)
{
    CHECK(pthread_join(r->thread, NULL) == 0);
    CHECK_MSG(r->status == TMCML_ERR_CANCELLED, "%s: status %d", what, (int)r->status);
    CHECK_MSG(r->result == NULL, "%s: a result", what);
}

/* The photons on the library's thread, the progress callback on the
 * caller's: the run has begun once the callback is called. */
static void test_delete_during_run(tmcml_problem *p)
{
    tmcml_session *s = tmcml_session_new();
    runner r;
    start(&r, s, p, true);
    CHECK(wait_for(has_progressed, &r));
    pause_ms(50); /* the CPU engine's workers well into their chunks */
    double t0 = now();
    tmcml_session_delete(s);
    double waited = now() - t0;
    CHECK_MSG(waited < PROMPT_SECONDS, "delete waited %.1f s", waited);
    printf("delete during a run: returned in %.3f s\n", waited);
    ended_cancelled(&r, "run with a callback");
}

/* The photons on the caller's thread (no callback), and a second run
 * waiting for its turn: the first is cancelled, the second refused. */
static void test_delete_with_waiting_call(tmcml_problem *p)
{
    tmcml_session *s = tmcml_session_new();
    runner first, second;
    start(&first, s, p, false);
    entered one = {s, 1}, two = {s, 2};
    CHECK(wait_for(has_entered, &one));
    start(&second, s, p, true);
    CHECK(wait_for(has_entered, &two));
    pause_ms(50);
    CHECK(!has_progressed(&second)); /* it waits for its turn */
    double t0 = now();
    tmcml_session_delete(s);
    double waited = now() - t0;
    CHECK_MSG(waited < PROMPT_SECONDS, "delete waited %.1f s", waited);
    printf("delete during a run and a waiting one: returned in %.3f s\n", waited);
    ended_cancelled(&first, "the run under way");
    ended_cancelled(&second, "the run waiting");
    CHECK(!has_progressed(&second));
}

/* A session deleted idle, and a run after a cancelled one, still work. */
static void test_idle(tmcml_problem *p)
{
    tmcml_session_delete(tmcml_session_new());
    tmcml_session *s = tmcml_session_new();
    tmcml_session_cancel(s); /* before the run: not for it */
    tmcml_options opt;
    tmcml_options_init(&opt);
    opt.engine = TMCML_ENGINE_CPU;
    opt.photons = 1000;
    opt.threads = 2;
    tmcml_result *r = NULL;
    CHECK_MSG(tmcml_run(s, p, &opt, &r) == TMCML_OK, "%s", tmcml_session_message(s));
    tmcml_result_delete(r);
    tmcml_session_delete(s);
}

int main(void)
{
    alarm(60); /* a delete that does not cancel leaves a run of days: fail, do not hang */
    tmcml_session *s = tmcml_session_new();
    tmcml_problem *p = NULL;
    CHECK(tmcml_problem_new(s, &slab, 1, 1.0, 1.0, &grid, &p) == TMCML_OK);
    tmcml_session_delete(s); /* problems outlive their session */
    test_idle(p);
    test_delete_during_run(p);
    test_delete_with_waiting_call(p);
    tmcml_problem_delete(p);
    return check_summary("test_api_threads");
}
