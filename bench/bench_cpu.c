/* Throughput of the CPU engine: photons/s and steps/s on one input, with one
 * thread and with all cores.  A benchmark, not a test: run it on a quiet
 * machine.  usage: bench_cpu FILE.mci [PHOTONS] [THREADS...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cpu.h"
#include "mci.h"
#include "tally.h"

static void machine_name(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, size, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

static int bench(const mci_run *run, uint64_t photons, int threads)
{
    tally_set t;
    tm_error err;
    if (!tally_set_init(&t, run->nr, run->nz, run->na))
        return 1;
    cpu_options opt = {.seed = 1, .threads = threads, .score_absorption = true};
    double start = clock_now();
    bool ok = cpu_simulate(run, &opt, 0, photons, &t, &err);
    double s = clock_now() - start;
    if (!ok) {
        error_print(stderr, &err);
        tally_set_free(&t);
        return 1;
    }
    double steps = (double)t.steps;
    printf("| %7d | %10llu | %8.2f | %12.4g | %12.4g | %14.1f | %12.4g |\n", threads,
           (unsigned long long)photons, s, (double)photons / s, (double)photons / s / threads,
           steps / (double)photons, steps / s);
    tally_set_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_cpu FILE.mci [PHOTONS] [THREADS...]\n");
        return 2;
    }
    mci_file f;
    tm_error err;
    if (!mci_read(argv[1], &f, &err)) {
        error_print(stderr, &err);
        return 2;
    }
    uint64_t photons = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    char cpu[256];
    machine_name(cpu, sizeof cpu);
    printf("CPU engine, %s, %d layers, %dx%d grid; %s, %d cores online\n\n", argv[1],
           f.runs[0].num_layers, f.runs[0].nr, f.runs[0].nz, cpu, cpu_count());
    // The table header as it prints:
    // clang-format off
    printf("| threads |    photons |    s     |   photons/s  | per thread   | steps/photon   |   "
           "steps/s    |\n"
           "|---------|------------|----------|--------------|--------------|----------------|-----"
           "---------|\n");
    // clang-format on
    int rc = 0;
    if (argc > 3) {
        for (int i = 3; i < argc && !rc; i++)
            rc = bench(&f.runs[0], photons, atoi(argv[i]));
    } else {
        rc = bench(&f.runs[0], photons, 1);
        if (!rc && cpu_count() > 1)
            rc = bench(&f.runs[0], photons, cpu_count());
    }
    mci_free(&f);
    return rc;
}
