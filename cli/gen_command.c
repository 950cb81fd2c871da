#include "gen_command.h"
#include "text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "devices.h"
#include "fs.h"
#include "mci.h"
#include "mua_sets.h"
#include "optics_sets.h"
#include "render.h"
#include "run.h"
#include "run_modulation.h"
#include "run_source.h"
#include "run_spatial.h"
#include "run_timed.h"
#include "run_xy.h"
#include "standalone.h"
#include "variant.h"
#include "plan.h"

static bool write_source(FILE *stream, void *ctx, tm_error *err)
{
    (void)err;
    return fputs(ctx, stream) >= 0;
}

static void print_info(const kernel_spec *spec, const render_output *src, const cli_options *opt)
{
    compile_options copt = {
        .arch = spec->arch, .cache_dir = opt->run.cache_dir, .verbose = opt->run.verbose};
    compile_result r = {0};
    tm_error err = {0};
    driver_warn_cache(&opt->run);
    if (!compile_cubin(src, &copt, &r, &err)) {
        error_print(stderr, &err);
        return;
    }
    fprintf(stderr,
            "kernel: sm_%d, %d registers, %d bytes stack, %d bytes spill stores, %d bytes spill "
            "loads, %zu bytes shared (tile), cubin %zu bytes, %s %.3f s\n",
            spec->arch, r.registers, r.stack_bytes, r.spill_stores, r.spill_loads,
            spec_shared_bytes(spec), r.cubin_size,
            r.from_cache ? "cached; compiled in" : "compiled in", r.seconds);
    char knobs[KNOBS_TEXT_MAX];
    knobs_text(&spec->knobs, knobs, sizeof knobs);
    fprintf(stderr, "knobs: %s\n", knobs);
    compile_result_free(&r);
}

/* --mua-sets: the file's absorption sets (their count is what the kernel of
 * the sets bakes in, the shape its variant is planned for); --jacobian
 * without them: the run's own mua, the one set whose kernel scores the
 * derivatives. */
static bool read_sets(const cli_options *opt, const mci_run *run, mua_sets *sets,
                      plan_options *plan, tm_error *err)
{
    memset(sets, 0, sizeof *sets);
    if (!opt->run.mua_sets && !opt->run.jacobian)
        return true;
    if (!opt->run.mua_sets && !mua_sets_own(run, sets)) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    if (opt->run.mua_sets &&
        !(opt->run.optics_sets ? optics_sets_read(opt->run.mua_sets, run, sets, err)
                               : mua_sets_read(opt->run.mua_sets, run->num_layers, sets, err)))
        return false;
    plan->num_sets = sets->count;
    plan->sets_paths = opt->run.path_lengths;
    plan->sets_jacobian = opt->run.jacobian;
    plan->sets_optics = optics_sets_level(run, sets->count, sets->mus, sets->g);
    plan->set_mua = sets->mua;
    plan->set_mus = sets->mus;
    plan->set_g = sets->g;
    return true;
}

/* --batch: the batch kernel of the variant chosen for the run. */
static bool for_batch(const cli_options *opt, kernel_spec *spec, const tune_device *dev,
                      tm_error *err)
{
    if (!opt->gen_batch)
        return true;
    return variant_batch_spec(spec, &opt->run.variant, dev, err);
}

int gen_command(const cli_options *opt)
{
    tm_error err = {0};
    mci_file file;
    if (!mci_read(opt->run.input, &file, &err)) {
        error_print(stderr, &err);
        return RUN_BAD_INPUT;
    }
    int status = RUN_BAD_INPUT;
    tune_device dev;
    bool have_dev = devices_query(opt->run.gpu_index, &dev);
    kernel_spec spec;
    char source[5000];
    render_output src = {0};
    plan_options plan;
    driver_plan_options(&opt->run, &plan);
    mua_sets sets = {0};
    if (opt->run_number > file.num_runs)
        error_set(&err, file.path, 0, "--run %d: the file has %d runs", opt->run_number,
                  file.num_runs);
    else if (run_source_runs(&opt->run, &file, &err) &&     /* --source: the source's kernel */
             run_timed_runs(&opt->run, &file, &err) &&      /* --time, --detector: their kernel */
             run_spatial_runs(&opt->run, &file, &err) &&    /* --spatial-frequencies: theirs */
             run_modulation_runs(&opt->run, &file, &err) && /* --modulation: theirs */
             run_xy_runs(&opt->run, &file, &err) &&         /* --xy: the grid's */
             read_sets(opt, &file.runs[opt->run_number - 1], &sets, &plan, &err) &&
             plan_choose_for_gen(&plan, have_dev ? &dev : NULL, &file.runs[opt->run_number - 1],
                                 &spec, source, sizeof source, &err) &&
             for_batch(opt, &spec, have_dev ? &dev : NULL, &err) &&
             render_kernel(&spec, opt->run.template_dir, &src, &err))
        status = RUN_OK;
    mua_sets_free(&sets);
    if (status == RUN_OK && !opt->run.quiet)
        text_printf(stderr, "tmcml: kernel variant: %s\n", source);
    /* What is written has its headers inlined (gen/standalone.h): it
     * compiles without templates/; NVRTC still gets src as it is. */
    char *text = status == RUN_OK ? standalone_source(&src) : NULL;
    if (status == RUN_OK && !text) {
        error_set(&err, NULL, 0, "out of memory");
        status = RUN_FAILED;
    }
    if (status == RUN_OK && opt->gen_output)
        status = fs_write_atomic(opt->gen_output, write_source, text, &err) ? RUN_OK : RUN_FAILED;
    else if (status == RUN_OK)
        fputs(text, stdout);
    free(text);
    if (status == RUN_OK && opt->gen_info)
        print_info(&spec, &src, opt);
    if (status != RUN_OK)
        error_print(stderr, &err);
    render_output_free(&src);
    mci_free(&file);
    return status;
}

int devices_command(const cli_options *opt)
{
    (void)opt;
    tm_error err = {0};
    if (!devices_describe(stdout, &err)) {
        error_print(stderr, &err);
        fprintf(stderr, "tmcml: no GPU can be used here; tmcml run simulates on the CPU engine "
                        "(double precision, every core; --engine cpu)\n");
        return RUN_FAILED;
    }
    return RUN_OK;
}
