/* The driver's options (driver_options.h). */
#include "driver_options.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "compile.h"
#include "text_escape.h"

void driver_options_init(driver_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->seed = DRIVER_DEFAULT_SEED;
    opt->score_absorption = true;
    opt->engine = DRIVER_ENGINE_AUTO;
    opt->gpus = 1;
    opt->checkpoint_every = DRIVER_DEFAULT_CHECKPOINT_SECONDS;
    variant_options_init(&opt->variant);
}

int driver_gpu_devices(const driver_options *opt, int *devices)
{
    if (opt->gpu_list_count > 0) {
        memcpy(devices, opt->gpu_list, (size_t)opt->gpu_list_count * sizeof *devices);
        return opt->gpu_list_count;
    }
    if (opt->gpus > 1) {
        for (int i = 0; i < opt->gpus; i++)
            devices[i] = i;
        return opt->gpus;
    }
    devices[0] = opt->gpu_index;
    return 1;
}

void driver_plan_options(const driver_options *opt, plan_options *plan)
{
    *plan = (plan_options){.seed = opt->seed,
                           .score_absorption = opt->score_absorption,
                           .quiet = opt->quiet,
                           .verbose = opt->verbose,
                           .template_dir = opt->template_dir,
                           .cache_dir = opt->cache_dir,
                           .profile_dir = opt->profile_dir,
                           .profile_file = opt->profile_file,
                           .no_profile = opt->no_profile,
                           .tune_mode = opt->tune_mode,
                           .budget = opt->budget,
                           .repeats = opt->repeats,
                           .debug_wrong_candidate = opt->debug_wrong_candidate,
                           .variant = opt->variant};
}

void driver_warn_cache(const driver_options *opt)
{
    compile_options c = {.cache_dir = opt->cache_dir};
    char dir[PATH_MAX], text[sizeof(tm_error) + 8];
    tm_error why;
    if (!opt->quiet && !compile_cache_check(&c, dir, sizeof dir, &why))
        text_printf(stderr,
                    "tmcml: warning: cubin cache %s not used (kernels are compiled anew): %s\n",
                    dir, error_format(&why, text, sizeof text));
}

bool driver_take_cpu(driver_options *opt, const char *refusal, const char *note, tm_error *err)
{
    if (opt->engine == DRIVER_ENGINE_GPU) {
        error_set(err, NULL, 0, "%s", refusal);
        return false;
    }
    if (opt->engine == DRIVER_ENGINE_AUTO && !opt->quiet)
        fprintf(stderr, "tmcml: %s\n", note);
    opt->engine = DRIVER_ENGINE_CPU;
    return true;
}

/* Why the GPU cannot score a group of count values (into why), or false. */
static bool own_kernel_fault(const driver_options *opt, int count, int gpu_max, char *why,
                             size_t size)
{
    if (count > gpu_max)
        snprintf(why, size, "of %d frequencies (a GPU kernel scores at most %d)", count, gpu_max);
    else if (opt->mua_sets)
        snprintf(why, size, "with %s", opt->optics_sets ? "--optics-sets" : "--mua-sets");
    else if (opt->jacobian)
        snprintf(why, size, "with --jacobian");
    else
        return false;
    return true;
}

bool driver_own_kernel_group(driver_options *opt, const char *option, const char *arrays, int count,
                             int gpu_max, tm_error *err)
{
    if (count == 0)
        return true;
    opt->no_batch = true; /* a run's own GPU kernel scores them, not a batch's */
    char why[96];
    if (!own_kernel_fault(opt, count, gpu_max, why, sizeof why))
        return true;
    char refusal[320], note[200];
    snprintf(refusal, sizeof refusal,
             "%s %s: %s are then scored by the CPU engine alone: use --engine cpu (or auto)",
             option, why, arrays);
    snprintf(note, sizeof note, "%s %s: scored by the CPU engine", option, why);
    return driver_take_cpu(opt, refusal, note, err);
}
