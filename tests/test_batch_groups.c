/* Which runs of a file share a batch (cli/run_batch.c, run_batch_groups):
 * runs of one layer count and grid (nr, nz, na, dr, dz) whatever their
 * optics and photons, each group named by its first run; a run of another
 * grid or layer count in a group of its own; a stack of glass alone
 * (which no batch kernel runs) in none. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mci.h"
#include "run_batch.h"

/* One run of `layers` (a glass layer when glass) on an nz x nr x 1 grid of
 * dz x dr bins. */
static void add_run(char *text, size_t size, int k, int nz, int nr, double dz, double dr,
                    double mua, bool glass)
{
    size_t at = strlen(text);
    snprintf(text + at, size - at,
             "r%d.mco A\n1000\n%g %g\n%d %d 1\n1\n1.0\n1.4 %g %g 0.9 %s\n1.0\n", k, dz, dr, nz, nr,
             glass ? 0.0 : mua, glass ? 0.0 : 100.0, glass ? "0.1" : "1E8");
}

int main(void)
{
    char text[4096];
    snprintf(text, sizeof text, "1.0\n7\n");
    add_run(text, sizeof text, 0, 50, 40, 0.01, 0.01, 0.1, false); /* group 0 */
    add_run(text, sizeof text, 1, 50, 40, 0.01, 0.01, 2.0, false); /* its optics: group 0 */
    add_run(text, sizeof text, 2, 60, 40, 0.01, 0.01, 0.1, false); /* nz: its own */
    add_run(text, sizeof text, 3, 50, 40, 0.01, 0.02, 0.1, false); /* dr: its own */
    add_run(text, sizeof text, 4, 50, 40, 0.01, 0.01, 0.1, true);  /* glass alone: none */
    add_run(text, sizeof text, 5, 60, 40, 0.01, 0.01, 5.0, false); /* with run 2 */
    add_run(text, sizeof text, 6, 50, 40, 0.01, 0.01, 0.5, false); /* group 0 */
    mci_file file;
    tm_error err;
    bool parsed = mci_parse(text, "groups.mci", &file, &err);
    CHECK_MSG(parsed, "%s", err.message);
    if (!parsed)
        return check_summary("test_batch_groups");
    CHECK(file.num_runs == 7);
    int group[7];
    run_batch_groups(&file, group);
    const int want[7] = {0, 0, 2, 3, -1, 2, 0};
    for (int i = 0; i < 7; i++)
        CHECK_MSG(group[i] == want[i], "run %d: group %d, expected %d", i + 1, group[i], want[i]);
    mci_free(&file);
    return check_summary("test_batch_groups");
}
