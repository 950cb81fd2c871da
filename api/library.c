/* Sessions, errors and devices (tmcml.h). */
#include "api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "tmcml_config.h"

const char *tmcml_version(void) { return TMCML_VERSION; }

const char *tmcml_status_name(tmcml_status status)
{
    static const char *const names[] = {"ok",
                                        "bad argument",
                                        "file error",
                                        "out of memory",
                                        "no usable GPU",
                                        "simulation failed",
                                        "cancelled",
                                        "not available"};
    if ((unsigned)status < sizeof names / sizeof *names)
        return names[status];
    return "unknown status";
}

tmcml_session *tmcml_session_new(void)
{
    tmcml_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return NULL;
    }
    if (pthread_cond_init(&s->turn, NULL) != 0) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    session_init(&s->eng);
    return s;
}

/* The calls already entered end before s is freed: the one under way is
 * cancelled (its engine's threads read s->stop and s->eng) and those
 * waiting for their turn are refused. */
void tmcml_session_delete(tmcml_session *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->closing = true;
    s->stop = 1;
    pthread_cond_broadcast(&s->turn);
    while (s->calls > 0)
        pthread_cond_wait(&s->turn, &s->lock);
    pthread_mutex_unlock(&s->lock);
    session_close(&s->eng);
    pthread_cond_destroy(&s->turn);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const char *tmcml_session_message(const tmcml_session *s) { return s ? s->message : ""; }

tmcml_status tmcml_session_status(const tmcml_session *s)
{
    return s ? s->status : TMCML_ERR_ARGUMENT;
}

void tmcml_session_cancel(tmcml_session *s)
{
    if (s)
        s->stop = 1;
}

void tmcml_session_stats_get(const tmcml_session *s, tmcml_session_stats *stats)
{
    if (!stats)
        return;
    memset(stats, 0, sizeof *stats);
    if (!s)
        return;
    const session_counts *c = &s->eng.counts;
    *stats = (tmcml_session_stats){c->runs, c->gpu_runs, c->compiles, c->module_loads, c->plans};
}

bool api_enter(tmcml_session *s)
{
    pthread_mutex_lock(&s->lock);
    s->calls++;
    while (s->busy && !s->closing)
        pthread_cond_wait(&s->turn, &s->lock);
    if (s->closing) {
        s->calls--;
        pthread_cond_broadcast(&s->turn);
        pthread_mutex_unlock(&s->lock);
        return false;
    }
    s->busy = true;
    s->stop = 0; /* under the lock: a delete's request is never lost */
    pthread_mutex_unlock(&s->lock);
    s->caller_locale = c_locale_enter(); /* this call's own: it has the turn */
    s->status = TMCML_OK;
    s->message[0] = '\0';
    return true;
}

tmcml_status api_leave(tmcml_session *s, tmcml_status status)
{
    if (status != TMCML_OK && s->status == TMCML_OK) {
        s->status = status; /* a failure without a message of its own */
        snprintf(s->message, sizeof s->message, "%s", tmcml_status_name(status));
    }
    c_locale_leave(s->caller_locale);
    pthread_mutex_lock(&s->lock);
    s->busy = false;
    s->calls--;
    /* Broadcast: the waiting calls and a waiting delete all look again. */
    pthread_cond_broadcast(&s->turn);
    pthread_mutex_unlock(&s->lock); /* s may be freed from here on */
    return status;
}

tmcml_status api_fail(tmcml_session *s, tmcml_status status, const tm_error *err)
{
    s->status = status;
    error_format(err, s->message, sizeof s->message);
    return status;
}

static void fail_v(tmcml_session *s, tmcml_status status, const char *fmt, va_list ap)
{
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    s->status = status;
}

tmcml_status api_failf(tmcml_session *s, tmcml_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(s, status, fmt, ap);
    va_end(ap);
    return status;
}

tmcml_status api_begin(tmcml_session *s, const api_arg *args)
{
    if (!s)
        return TMCML_ERR_ARGUMENT;
    if (!api_enter(s))
        return TMCML_ERR_CANCELLED;
    for (const api_arg *a = args; a && a->name; a++)
        if (!a->pointer)
            return api_arg_error(s, "%s: NULL", a->name);
    return TMCML_OK;
}

tmcml_status api_arg_error(tmcml_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(s, TMCML_ERR_ARGUMENT, fmt, ap);
    va_end(ap);
    return api_leave(s, TMCML_ERR_ARGUMENT);
}

static void device_from_info(const cuda_device_info *in, tmcml_device *out)
{
    *out = (tmcml_device){.index = in->index,
                          .cc_major = in->cc_major,
                          .cc_minor = in->cc_minor,
                          .sm_count = in->sm_count,
                          .total_memory = in->total_memory,
                          .free_memory = in->free_memory,
                          .driver_version = in->driver_version};
    snprintf(out->name, sizeof out->name, "%s", in->name);
}

/* The GPUs into out[0 .. max-1] and their count; false with *err where
 * there is no driver or no GPU. */
static bool query_devices(tmcml_device *out, int max, int *count, tm_error *err)
{
    cuda_driver *drv;
    if (!cuda_open(&drv, err))
        return false;
    int n = cuda_device_count(drv);
    bool ok = true;
    for (int i = 0; ok && i < n && i < max; i++) {
        cuda_device_info info;
        ok = cuda_device_query(drv, i, &info, err);
        if (ok)
            device_from_info(&info, &out[i]);
    }
    cuda_close(drv);
    if (ok && n == 0) {
        error_set(err, NULL, 0, "the CUDA driver reports no GPU");
        ok = false;
    }
    *count = ok ? n : 0;
    return ok;
}

tmcml_status tmcml_devices(tmcml_session *s, tmcml_device *out, int max, int *count)
{
    if (count)
        *count = 0;
    tmcml_status entered = api_begin(s, API_ARGS({count, "count"}));
    if (entered != TMCML_OK)
        return entered;
    if (max > 0 && !out)
        return api_arg_error(s, "out: NULL for max %d", max);
    tm_error err = {0};
    if (!query_devices(out, max, count, &err))
        return api_leave(s, api_fail(s, TMCML_ERR_NO_GPU, &err));
    return api_leave(s, TMCML_OK);
}

bool api_device(int index, tmcml_device *out, tm_error *err)
{
    tmcml_device *found = calloc((size_t)index + 1, sizeof *found);
    int count = 0;
    bool ok = found && query_devices(found, index + 1, &count, err);
    if (ok && count > index)
        *out = found[index];
    else if (ok)
        error_set(err, NULL, 0, "gpu %d: no such GPU (%d found)", index, count);
    else if (!found)
        error_set(err, NULL, 0, "out of memory");
    free(found);
    return ok && count > index;
}
