/* The CPU engine's contracts (docs/design.md, "Bit-identity"): tallies are a function
 * of (input, seed, photon range) only: bit-identical for any thread count
 * and any split of the range; -A changes nothing but A_rz. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "mci.h"

#define PHOTONS 20000u

static const char *input = "1.0\n1\nt.mco A\n1000\n0.01 0.01\n40 50 10\n3\n1.0\n"
                           "1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n";

static bool simulate(const mci_run *run, uint64_t seed, int threads, bool absorb, uint64_t first,
                     uint64_t count, tally_set *t)
{
    cpu_options opt = {.seed = seed, .threads = threads, .score_absorption = absorb};
    tm_error err;
    bool ok = cpu_simulate(run, &opt, first, count, t, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

static bool all_zero(const tally_acc_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i])
            return false;
    return true;
}

int main(void)
{
    mci_file f;
    tm_error err;
    if (!mci_parse(input, "inline", &f, &err)) {
        error_print(stderr, &err);
        return 1;
    }
    const mci_run *run = &f.runs[0];
    tally_set one, two, three, split, other_seed, no_abs;
    tally_set *all[] = {&one, &two, &three, &split, &other_seed, &no_abs};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        CHECK(tally_set_init(all[i], run->nr, run->nz, run->na));

    CHECK(simulate(run, 7, 1, true, 0, PHOTONS, &one));
    CHECK(simulate(run, 7, 2, true, 0, PHOTONS, &two));
    CHECK(simulate(run, 7, 3, true, 0, PHOTONS, &three));
    /* The same photons in three pieces of odd sizes. */
    CHECK(simulate(run, 7, 2, true, 0, 1234, &split));
    CHECK(simulate(run, 7, 1, true, 1234, 7777, &split));
    CHECK(simulate(run, 7, 3, true, 1234 + 7777, PHOTONS - 1234 - 7777, &split));
    CHECK(simulate(run, 8, 2, true, 0, PHOTONS, &other_seed));
    CHECK(simulate(run, 7, 2, false, 0, PHOTONS, &no_abs));

    CHECK(one.photons == PHOTONS);
    CHECK(!all_zero(one.a_rz, (size_t)run->nr * run->nz));
    CHECK(tally_set_equal(&one, &two));
    CHECK(tally_set_equal(&one, &three));
    CHECK(tally_set_equal(&one, &split));
    CHECK(!tally_set_equal(&one, &other_seed));
    /* -A: no absorption scored, escapes bit-identical. */
    size_t ra = (size_t)run->nr * run->na * sizeof(tally_acc_t);
    CHECK(all_zero(no_abs.a_rz, (size_t)run->nr * run->nz));
    CHECK(memcmp(no_abs.rd_ra, one.rd_ra, ra) == 0);
    CHECK(memcmp(no_abs.tt_ra, one.tt_ra, ra) == 0);

    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        tally_set_free(all[i]);
    mci_free(&f);
    return check_summary("cpu");
}
