/* tmcml: MCML-compatible Monte Carlo simulation of light in layered tissue. */
#include <cjson/cJSON.h>
#include <lua.h>
#include <stdio.h>

#include "cli.h"
#include "conv_command.h"
#include "driver_queues.h"
#include "fd_room.h"
#include "gen_command.h"
#include "lut_command.h"
#include "plot_command.h"
#include "profiles_command.h"
#include "ranks.h"
#include "fixed_point.h"
#include "rng_mwc.h"
#include "run.h"
#include "interrupt.h"
#include "tune_command.h"
#include "tmcml_config.h"

static void print_version(void)
{
    printf("tmcml %s\n", TMCML_VERSION);
    printf("engines: cpu (double precision), gpu (kernels generated from Lua templates, "
           "compiled by NVRTC, run through the driver API; libcuda and libnvrtc are loaded at "
           "run time)\n");
    printf("random numbers: per-photon multiply-with-carry, %u safe-prime multipliers\n",
           MWC_MULTIPLIER_COUNT);
    printf("fixed point: 2^%d units per unit weight\n", TALLY_UNITS_PER_WEIGHT_LOG2);
    printf("libraries: %s, cJSON %s\n", LUA_RELEASE, cJSON_Version());
#ifdef TMCML_HAVE_MPI
    printf("mpi: built in (mpirun -np R tmcml run ... shares each run's photons)\n");
#else
    printf("mpi: not built in\n");
#endif
}

int main(int argc, char **argv)
{
    interrupt_install();
    driver_queues_apply(); /* before anything loads the CUDA driver */
    fd_room_prepare();     /* before any thread: fd_room.h */
    if (argc < 2) {        /* a bare "tmcml": what it does and how */
        cli_print_usage(stderr);
        return 2;
    }
    cli_options opt;
    tm_error err = {0};
    if (!cli_parse(argc, argv, &opt, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    switch (opt.command) {
    case CLI_HELP: cli_print_usage(stdout); return 0;
    case CLI_VERSION: print_version(); return 0;
    case CLI_GEN: return gen_command(&opt);
    case CLI_DEVICES: return devices_command(&opt);
    case CLI_PROFILES: return profiles_command(argc - 1, argv + 1); /* argv[1] is "profiles" */
    case CLI_PLOT: return plot_command(argc - 1, argv + 1);         /* argv[1] is "plot" */
    case CLI_CONV: return conv_command(argc - 1, argv + 1);         /* argv[1] is "conv" */
    case CLI_LUT: return lut_command(argc - 1, argv + 1);           /* argv[1] is "lut" */
    case CLI_TUNE: return tune_command(&opt);
    case CLI_SWEEP: return sweep_command(&opt);
    case CLI_RUN: break;
    }
    ranks world;
    if (!ranks_start(&argc, &argv, &world, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    if (world.rank == 0)
        cli_engine_notes(&opt, stderr);
    int status = run_input_file(&opt.run, &world);
    ranks_end(&world);
    return status;
}
