/* Runs that stop at a precision through the library
 * (tmcml_problem_set_precision, tmcml_result_precision; tmcml.h): the
 * command line's rules (driver/run_precision.h) on a problem's fields, and
 * each result's decisions in a call. */
#include "api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The command line's message about `--precision-of X` as the field's: "of X". */
static const char *as_field(const char *message)
{
    static const char option[] = "--precision-of";
    return strncmp(message, option, sizeof option - 1) == 0 ? message + sizeof option - 1 : message;
}

tmcml_status api_problem_precision(tmcml_session *s, tmcml_problem *p, double relative,
                                   const char *of, int64_t max_photons)
{
    if (relative == 0.0) {
        p->precision = 0.0;
        p->precision_of[0] = '\0';
        p->max_photons = 0;
        return TMCML_OK;
    }
    if (!(relative > 0.0 && relative < 1.0))
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "relative: a relative standard error must be above 0 and below 1 "
                         "(0.01 for 1 %%; 0 turns it off) (got %g)",
                         relative);
    if (max_photons != 0 && max_photons < PRECISION_MIN_PHOTONS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "max_photons: expected 0 (the options' or the problem's photons) or "
                         "at least %lld (the 64 groups of %d a precision run decides after) "
                         "(got %lld)",
                         (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK, (long long)max_photons);
    of = of ? of : "Rd";
    if (strlen(of) >= sizeof p->precision_of)
        return api_failf(s, TMCML_ERR_ARGUMENT, "of: at most %zu characters (got \"%.20s...\")",
                         sizeof p->precision_of - 1, of);
    precision_target t = {.relative = relative};
    tm_error err = {0};
    if (!precision_target_parse(of, &p->run, true, &t, &err))
        return api_failf(s, TMCML_ERR_ARGUMENT, "of%s", as_field(err.message));
    p->precision = relative;
    snprintf(p->precision_of, sizeof p->precision_of, "%s", of);
    p->max_photons = max_photons;
    return TMCML_OK;
}

tmcml_status tmcml_problem_set_precision(tmcml_session *s, tmcml_problem *p, double relative,
                                         const char *of, int64_t max_photons)
{
    tmcml_status entered = api_begin(s, API_ARGS({p, "problem"}));
    if (entered != TMCML_OK)
        return entered;
    return api_leave(s, api_problem_precision(s, p, relative, of, max_photons));
}

tmcml_status tmcml_result_precision(const tmcml_result *r, tmcml_precision *out)
{
    if (!r || !out)
        return TMCML_ERR_ARGUMENT;
    if (r->problem.precision <= 0.0) {
        *out = (tmcml_precision){NAN, NAN, 0, 0, 0};
        return TMCML_ERR_STATE;
    }
    *out = r->precision;
    return TMCML_OK;
}

/* Result r's (number i of the call's) target and photon count checked. */
static tmcml_status plan_one(tmcml_session *s, const tmcml_result *r, int i, const tmcml_options *o,
                             precision_stop *prec)
{
    const mci_run *run = &r->problem.run;
    if (run->photons < PRECISION_MIN_PHOTONS)
        return api_failf(s, TMCML_ERR_ARGUMENT,
                         "problems[%d]: a precision run needs at least %lld photons (the 64 "
                         "groups of %d it decides after), and it may take %lld: raise max_photons "
                         "(tmcml_problem_set_precision) or the photons",
                         i, (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK,
                         (long long)run->photons);
    tm_error err = {0};
    prec->target.relative = r->problem.precision;
    if (!precision_target_parse(r->problem.precision_of, run, o->absorption != 0, &prec->target,
                                &err))
        return api_failf(s, TMCML_ERR_ARGUMENT, "problems[%d]: of%s", i, as_field(err.message));
    return TMCML_OK;
}

tmcml_status api_precision_plan(tmcml_session *s, tmcml_result *const *r, int count,
                                const tmcml_options *o, precision_stop **out)
{
    *out = NULL;
    bool asks = r[0]->problem.precision > 0.0;
    for (int i = 1; i < count; i++)
        if ((r[i]->problem.precision > 0.0) != asks)
            return api_failf(s, TMCML_ERR_ARGUMENT,
                             "problems[%d]: %s a precision and problems[0] %s: every problem of a "
                             "call stops at a precision, or none (their groups differ); run them "
                             "in two calls",
                             i, asks ? "has no" : "has", asks ? "has" : "has none");
    if (!asks)
        return TMCML_OK;
    precision_stop *prec = calloc((size_t)count, sizeof *prec);
    if (!prec)
        return api_failf(s, TMCML_ERR_MEMORY, "out of memory");
    for (int i = 0; i < count; i++) {
        tmcml_status status = plan_one(s, r[i], i, o, &prec[i]);
        if (status != TMCML_OK) {
            free(prec);
            return status;
        }
    }
    *out = prec;
    return TMCML_OK;
}

void api_precision_finish(tmcml_result *r, const precision_stop *prec, const uncertainty *u)
{
    if (!prec)
        return;
    int64_t most = r->problem.run.photons;
    double reached = precision_reached(&prec->target, u);
    r->problem.run.photons = (int64_t)r->tallies.photons;
    r->precision = (tmcml_precision){.asked = r->problem.precision,
                                     .reached = reached,
                                     .photons = (int64_t)r->tallies.photons,
                                     .max_photons = most,
                                     .met = reached <= r->problem.precision};
}

uint64_t api_precision_expected(tmcml_result *const *r, int count, const precision_stop *prec)
{
    uint64_t total = 0;
    for (int i = 0; i < count; i++)
        total += prec && prec[i].taken ? prec[i].taken : (uint64_t)r[i]->problem.run.photons;
    return total;
}
