/* `tmcml lut`'s table through the library (lut_run.h). */
#include "lut_run.h"

#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "fs.h"
#include "interrupt.h"
#include "lut.h"
#include "lut_table.h"
#include "lut_write.h"
#include "text_escape.h"

/* The command's side of one table. */
typedef struct lut_front {
    const lut_request *req;
    double *rd, *rd_r;        /* the table's values, as the library fills them */
    tmcml_lut_errors errors;  /* the request's, with its outs (errors_asked) */
    tmcml_lut_frequencies fx; /* the request's frequencies, with their outs (fx_count) */
    bool began;               /* the library's checks passed: something may be simulated */
} lut_front;

/* The library's progress callback: a stop signal cancels the call. */
static int stop_poll(uint64_t done, uint64_t total, void *user)
{
    (void)done;
    (void)total;
    (void)user;
    return interrupt_requested() != 0;
}

/* From here a signal asks the table to stop (the checkpoint then keeps the
 * simulations done) rather than ending the process at once. */
static void began(void *ctx, const tmcml_lut_info *info)
{
    lut_front *f = ctx;
    f->began = true;
    interrupt_graceful(true);
    if (info->resumed > 0 && !f->req->quiet)
        text_printf(stderr, "tmcml lut: resuming from %s, %d of %d simulations done\n",
                    f->req->ck.path, info->done, info->simulations);
}

static void ended(void *ctx, const tmcml_lut_info *info)
{
    const lut_front *f = ctx;
    if (f->req->progress)
        fprintf(stderr, "\rtmcml lut: %d/%d simulations (%s)%s", info->done, info->simulations,
                lut_strategy_name((lut_strategy)info->strategy),
                info->done == info->simulations ? "\n" : "");
}

static void unsaved(void *ctx, const char *why, double retry)
{
    (void)ctx;
    fprintf(stderr, "tmcml: warning: checkpoint not written: %s; retrying in %g s\n", why, retry);
}

/* Every point simulated: the files, while the checkpoint still keeps them. */
static bool finish(void *ctx, const tmcml_lut_info *info, tm_error *err)
{
    const lut_front *f = ctx;
    const lut_request *q = f->req;
    lut_values v = {&q->spec,
                    q->opt.photons,
                    q->opt.seed,
                    f->rd,
                    f->rd_r,
                    info,
                    q->errors_asked ? &f->errors : NULL,
                    q->fx_count > 0 ? &f->fx : NULL};
    return lut_write_npz(q->npz, &v, err) && lut_write_csv(q->csv, &v, err);
}

/* What the checkpoint holds, for the messages: "4 of 10 simulations (24 of
 * 60 points) in OUT.lut.ckpt". */
static void held(const lut_request *q, const tmcml_lut_info *info, char *buf, size_t size)
{
    snprintf(buf, size, "%d of %d simulations (%lld of %lld points) in %s", info->done,
             info->simulations, (long long)info->points_done,
             (long long)q->spec.num_musp * q->spec.num_mua, q->ck.path);
}

/* A signal stopped the table: what the library kept said, the process ended. */
_Noreturn static void stopped(tmcml_session *s, const lut_request *q, const tmcml_lut_info *info)
{
    char kept[1536], what[1024];
    held(q, info, what, sizeof what);
    if (info->done == 0) {
        snprintf(kept, sizeof kept, "no simulation of the table had ended: nothing kept");
    } else if (info->kept < info->done) {
        text_printf(stderr, "tmcml: %s\n", tmcml_session_message(s));
        snprintf(kept, sizeof kept,
                 "the checkpoint could not be written: the last one, if any, is kept");
    } else {
        snprintf(kept, sizeof kept,
                 "kept %s (a simulation cut short is not kept): continue with the same command "
                 "and --resume",
                 what);
    }
    interrupt_exit(interrupt_requested(), kept);
}

/* The table failed (a simulation, or writing its files): what the
 * checkpoint holds said, for --resume. */
static void failed(tmcml_session *s, const lut_request *q, const tmcml_lut_info *info)
{
    text_printf(stderr, "tmcml: %s\n", tmcml_session_message(s));
    char what[1024];
    held(q, info, what, sizeof what);
    if (info->kept > 0 && info->kept == info->done)
        text_printf(stderr, "tmcml: kept %s: continue with the same command and --resume\n", what);
    else if (info->kept > 0)
        text_printf(stderr,
                    "tmcml: %s still holds %d of %d simulations: continue with the same command "
                    "and --resume\n",
                    q->ck.path, info->kept, info->simulations);
}

/* A precision's outcome: the photons the table took, and the points that
 * stopped short of it (then an error: the files are written, the status
 * 1). */
static bool report_precision(const lut_request *q, const tmcml_lut_errors *e)
{
    if (!q->errors_asked || e->precision <= 0.0)
        return true;
    long long points = (long long)q->spec.num_musp * q->spec.num_mua;
    if (!q->quiet)
        printf("tmcml lut: precision %.3g %% of %s: %llu photons over %lld points (%.4g a point "
               "on average, at most %lld)\n",
               100.0 * e->precision, e->of ? e->of : "Rd", (unsigned long long)e->photons_total,
               points, (double)e->photons_total / (double)points,
               (long long)(e->max_photons ? e->max_photons : q->opt.photons));
    if (e->points_short == 0)
        return true;
    text_printf(stderr,
                "tmcml: %lld of %lld points took their most photons (%lld) short of the "
                "precision %.3g %% (their reached error is in %s's \"reached\"): the files are "
                "written, the precision is not met\n",
                (long long)e->points_short, points,
                (long long)(e->max_photons ? e->max_photons : q->opt.photons), 100.0 * e->precision,
                q->npz);
    return false;
}

static void report(const lut_request *q, const tmcml_lut_info *info, double seconds)
{
    if (info->trapped_photons > 0)
        fprintf(stderr,
                "tmcml: warning: %llu photons were stopped as never ending (docs/physics.md): "
                "mua 0 in a thick layer?\n",
                (unsigned long long)info->trapped_photons);
    char resumed[64] = "";
    if (info->resumed > 0)
        snprintf(resumed, sizeof resumed, " (%d of them resumed)", info->resumed);
    if (!q->quiet)
        printf("tmcml lut: %s and %s: %d mus' x %d mua, %lld photons a point, strategy %s, "
               "engine %s, %d simulations%s, %.2f s\n",
               q->csv, q->npz, q->spec.num_musp, q->spec.num_mua, (long long)q->opt.photons,
               lut_strategy_name((lut_strategy)info->strategy), info->engine, info->simulations,
               resumed, seconds);
}

/* The arrays the library fills for req: its values, and its errors and
 * frequencies' when asked; false when memory ran out (what was had is freed by
 * front_free). */
static bool front_alloc(lut_front *f, const lut_request *req)
{
    size_t points = (size_t)req->spec.num_musp * (size_t)req->spec.num_mua;
    size_t rings = points * (size_t)req->spec.nr, fx = points * (size_t)req->fx_count;
    *f = (lut_front){.req = req,
                     .rd = malloc(points * sizeof *f->rd),
                     .rd_r = malloc(rings * sizeof *f->rd_r),
                     .errors = req->errors,
                     .fx = {.fx = req->fx, .count = req->fx_count}};
    bool errors = req->errors_asked, ok = f->rd && f->rd_r;
    if (errors) {
        f->errors.rd_stderr = malloc(points * sizeof *f->errors.rd_stderr);
        f->errors.rd_r_stderr = malloc(rings * sizeof *f->errors.rd_r_stderr);
        f->errors.photons = malloc(points * sizeof *f->errors.photons);
        f->errors.reached = malloc(points * sizeof *f->errors.reached);
        ok = ok && f->errors.rd_stderr && f->errors.rd_r_stderr && f->errors.photons &&
             f->errors.reached;
    }
    if (req->fx_count > 0) {
        f->fx.rd_fx = malloc(fx * sizeof *f->fx.rd_fx);
        f->fx.rd_fx_stderr = errors ? malloc(fx * sizeof *f->fx.rd_fx_stderr) : NULL;
        ok = ok && f->fx.rd_fx && (!errors || f->fx.rd_fx_stderr);
    }
    if (!ok)
        fprintf(stderr, "tmcml: out of memory for a table of %d x %d points and %d rings\n",
                req->spec.num_musp, req->spec.num_mua, req->spec.nr);
    return ok;
}

static void front_free(lut_front *f)
{
    free(f->rd);
    free(f->rd_r);
    free(f->errors.rd_stderr);
    free(f->errors.rd_r_stderr);
    free(f->errors.photons);
    free(f->errors.reached);
    free(f->fx.rd_fx);
    free(f->fx.rd_fx_stderr);
}

/* The library's table of f, watched: the exit status. */
static int simulate(tmcml_session *s, lut_front *f, double start)
{
    const lut_request *req = f->req;
    tmcml_options opt = req->opt;
    opt.progress = stop_poll;
    opt.progress_interval = LUT_STOP_POLL_SECONDS;
    api_lut_watch watch = {f, began, ended, unsaved, finish};
    tmcml_lut_info info;
    tmcml_status got = api_lut(s, &req->spec, &opt, &req->ck, f->rd, f->rd_r,
                               req->errors_asked ? &f->errors : NULL,
                               req->fx_count > 0 ? &f->fx : NULL, &info, &watch);
    if (got == TMCML_ERR_CANCELLED && interrupt_requested())
        stopped(s, req, &info);
    /* Done or failed, the graceful mode stayed while the files were
     * written (or the checkpoint kept): a signal then let them end. */
    interrupt_graceful(false);
    bool met = true;
    if (got == TMCML_OK) {
        report(req, &info, clock_now() - start);
        met = report_precision(req, &f->errors);
    } else if (!f->began)
        text_printf(stderr, "tmcml: %s\n", tmcml_session_message(s));
    else
        failed(s, req, &info);
    return got == TMCML_OK ? (met ? 0 : 1) : f->began ? 1 : 2;
}

int lut_run(tmcml_session *s, const lut_request *req)
{
    double start = clock_now();
    tm_error err = {0};
    /* OUT's directory is made when missing, as `run -o DIR` makes DIR. */
    if (!fs_make_parent(req->npz, &err) || !fs_check_output(req->npz, &err) ||
        !fs_check_output(req->csv, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    lut_front f;
    int status = front_alloc(&f, req) ? simulate(s, &f, start) : 2;
    front_free(&f);
    return status;
}
