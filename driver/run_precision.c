/* Runs that stop at a precision (run_precision.h). */
#include "run_precision.h"

#include <math.h>
#include <stdio.h>

bool run_precision_runs(const driver_options *opt, mci_file *file, tm_error *err)
{
    if (opt->precision <= 0.0) {
        if (opt->precision_of || opt->max_photons > 0)
            error_set(err, NULL, 0, "%s: only with --precision",
                      opt->precision_of ? "--precision-of" : "--max-photons");
        return !opt->precision_of && opt->max_photons == 0;
    }
    for (int i = 0; i < file->num_runs; i++) {
        mci_run *run = &file->runs[i];
        if (opt->max_photons > 0)
            run->photons = opt->max_photons;
        precision_target t = {.relative = opt->precision};
        tm_error why = {0};
        if (run->photons < PRECISION_MIN_PHOTONS) {
            error_set(err, file->path, 0,
                      "run %d: --precision needs at least %lld photons (the 64 groups of %d it "
                      "decides after), and it may take %lld: raise --max-photons or -N",
                      i + 1, (long long)PRECISION_MIN_PHOTONS, PRECISION_CHUNK,
                      (long long)run->photons);
            return false;
        }
        if (!precision_target_parse(opt->precision_of, run, opt->score_absorption, &t, &why)) {
            error_set(err, file->path, 0, "run %d (%s): %s", i + 1, run->out_name, why.message);
            return false;
        }
    }
    return true;
}

bool run_precision_target(const driver_options *opt, const mci_run *run, checkpoint *ck,
                          precision_stop *rp, tm_error *err)
{
    *rp = (precision_stop){.ck = ck};
    rp->target.relative = opt->precision;
    return opt->precision <= 0.0 ||
           precision_target_parse(opt->precision_of, run, opt->score_absorption, &rp->target, err);
}

bool run_precision_report(const driver_options *opt, const mci_run *run, const checkpoint *ck,
                          summary_precision *out)
{
    precision_target t = {.relative = opt->precision};
    tm_error ignored;
    if (opt->precision <= 0.0 ||
        !precision_target_parse(opt->precision_of, run, opt->score_absorption, &t, &ignored))
        return false;
    double reached = precision_reached(&t, &ck->unc);
    *out = (summary_precision){.of = opt->precision_of ? opt->precision_of : "Rd",
                               .asked = opt->precision,
                               .reached = reached,
                               .max_photons = (uint64_t)run->photons,
                               .met = reached <= opt->precision};
    return true;
}

bool run_precision_met(const driver_options *opt, const mci_run *run, const checkpoint *ck,
                       const char *mco, tm_error *err)
{
    summary_precision p;
    if (!run_precision_report(opt, run, ck, &p) || p.met)
        return true;
    error_set(err, mco, 0,
              "--max-photons %lld reached with %s's relative standard error %.3g %% (asked "
              "%.3g %%): the outputs are written, the precision is not met",
              (long long)run->photons, p.of, 100.0 * p.reached, 100.0 * p.asked);
    return false;
}
