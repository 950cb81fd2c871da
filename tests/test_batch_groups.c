/* Which runs of a file share a batch (driver/run_batch.c, run_batch_groups):
 * runs of one layer count and grid (nr, nz, na, dr, dz) whatever their
 * optics, each group named by its first run; a run of another grid or
 * layer count in a group of its own; a stack of glass alone (which no batch
 * kernel runs) in none; and, given a size, the runs of that many photons or
 * more in none, counted when they would have shared a batch. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mci.h"
#include "run_batch.h"

/* One run of `photons` photons in one layer (glass when glass) on an nz x
 * nr x 1 grid of dz x dr bins. */
static void add_run(char *text, size_t size, int k, int photons, int nz, int nr, double dz,
                    double dr, double mua, bool glass)
{
    size_t at = strlen(text);
    snprintf(text + at, size - at, "r%d.mco A\n%d\n%g %g\n%d %d 1\n1\n1.0\n1.4 %g %g 0.9 %s\n1.0\n",
             k, photons, dz, dr, nz, nr, glass ? 0.0 : mua, glass ? 0.0 : 100.0,
             glass ? "0.1" : "1E8");
}

static void check_groups(const mci_file *file, uint64_t alone_photons, const int *want,
                         int want_left_out)
{
    int group[7];
    int left_out = run_batch_groups(file, alone_photons, group);
    for (int i = 0; i < 7; i++)
        CHECK_MSG(group[i] == want[i], "alone from %llu photons: run %d in group %d, expected %d",
                  (unsigned long long)alone_photons, i + 1, group[i], want[i]);
    CHECK_MSG(left_out == want_left_out, "alone from %llu photons: %d left out, expected %d",
              (unsigned long long)alone_photons, left_out, want_left_out);
}

int main(void)
{
    char text[4096];
    snprintf(text, sizeof text, "1.0\n7\n");
    add_run(text, sizeof text, 0, 5000, 50, 40, 0.01, 0.01, 0.1, false); /* group 0 */
    add_run(text, sizeof text, 1, 1000, 50, 40, 0.01, 0.01, 2.0, false); /* its optics: group 0 */
    add_run(text, sizeof text, 2, 1000, 60, 40, 0.01, 0.01, 0.1, false); /* nz: its own */
    add_run(text, sizeof text, 3, 9000, 50, 40, 0.01, 0.02, 0.1, false); /* dr: its own */
    add_run(text, sizeof text, 4, 9000, 50, 40, 0.01, 0.01, 0.1, true);  /* glass alone: none */
    add_run(text, sizeof text, 5, 1000, 60, 40, 0.01, 0.01, 5.0, false); /* with run 2 */
    add_run(text, sizeof text, 6, 2000, 50, 40, 0.01, 0.01, 0.5, false); /* group 0 */
    mci_file file;
    tm_error err;
    bool parsed = mci_parse(text, "groups.mci", &file, &err);
    CHECK_MSG(parsed, "%s", err.message);
    if (!parsed)
        return check_summary("test_batch_groups");
    CHECK(file.num_runs == 7);
    /* No size rule (the CPU engine, --batch-all), or none as big as it. */
    check_groups(&file, 0, (const int[7]){0, 0, 2, 3, -1, 2, 0}, 0);
    check_groups(&file, 9001, (const int[7]){0, 0, 2, 3, -1, 2, 0}, 0);
    /* Runs 1 and 7 alone: run 2 names the rest of their group.  Run 4 (a
     * group of its own) and the glass are alone anyway: not counted. */
    check_groups(&file, 2000, (const int[7]){-1, 1, 2, -1, -1, 2, -1}, 2);
    /* Only run 1 alone: run 2 names the group it leaves. */
    check_groups(&file, 5000, (const int[7]){-1, 1, 2, -1, -1, 2, 1}, 1);
    mci_free(&file);
    return check_summary("test_batch_groups");
}
