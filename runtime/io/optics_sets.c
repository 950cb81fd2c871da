/* Optics sets' rules and runs (optics_sets.h). */
#include "optics_sets.h"

#include <stdlib.h>

#include "mua_sets.h"
#include "tm_limits.h"

void optics_sets_split(const double *optics, int count, int layers, double *mua, double *mus,
                       double *g)
{
    for (size_t e = 0; e < (size_t)count * (size_t)layers; e++) {
        mua[e] = optics[3 * e];
        mus[e] = optics[3 * e + 1];
        g[e] = optics[3 * e + 2];
    }
}

/* Why a set's (mus, g) cannot be reweighted from layer l's histories, or
 * NULL; *param the parameter at fault. */
static const char *scattering_fault(const mci_layer *l, double mus, double g, const char **param)
{
    *param = "mus";
    if (!(l->mus > 0.0) && mus != 0.0)
        return "the layer does not scatter (mus 0, or glass): a set cannot give it scattering, "
               "whose histories the run never samples";
    if (l->mus > 0.0 && !(mus >= MCI_MIN_COEFFICIENT && mus <= MCI_MAX_COEFFICIENT))
        return "must be between 1e-12 and 1e12 /cm in a layer that scatters";
    *param = "g";
    if (!(l->mus > 0.0) || l->g == 1.0 || l->g == -1.0)
        return g == l->g ? NULL
                         : "the layer does not scatter or deflects by a fixed angle (g +-1): its "
                           "g stays the run's";
    return g > -1.0 && g < 1.0 ? NULL : "must be within (-1, 1)";
}

bool optics_sets_check(const mci_run *run, const double *mua, const double *mus, const double *g,
                       int count, tm_error *err)
{
    if (!mua_sets_check("optics_sets", mua, count, run->num_layers, err))
        return false;
    for (int k = 0; k < count; k++)
        for (int i = 1; i <= run->num_layers; i++) {
            size_t at = (size_t)k * (size_t)run->num_layers + (size_t)i - 1;
            const char *param, *why = scattering_fault(&run->layers[i], mus[at], g[at], &param);
            if (why) {
                error_set(err, NULL, 0, "optics_sets: set %d, layer %d: %s %g: %s", k + 1, i, param,
                          param[0] == 'g' ? g[at] : mus[at], why);
                return false;
            }
        }
    return true;
}

bool optics_sets_run(const mci_run *run, const double *mua, const double *mus, const double *g,
                     int k, mci_run *out)
{
    if (!mua_sets_run(run, mua, k, out))
        return false;
    for (int i = 1; i <= run->num_layers; i++) {
        size_t at = (size_t)k * (size_t)run->num_layers + (size_t)i - 1;
        out->layers[i].mus = mus[at];
        out->layers[i].g = g[at];
    }
    out->optics_set = true;
    return true;
}

bool optics_sets_read(const char *path, const mci_run *run, mua_sets *out, tm_error *err)
{
    int lines[TM_MAX_ABSORPTION_SETS], count = 0, layers = run->num_layers;
    *out = (mua_sets){.layers = layers};
    double *table = mua_sets_read_table(path, layers, 3, &count, lines, err);
    size_t n = (size_t)count * (size_t)layers;
    out->mua = table ? malloc(n * sizeof *out->mua) : NULL;
    out->mus = table ? malloc(n * sizeof *out->mus) : NULL;
    out->g = table ? malloc(n * sizeof *out->g) : NULL;
    if (table && (!out->mua || !out->mus || !out->g))
        error_set(err, path, 0, "out of memory");
    bool ok = out->mua && out->mus && out->g;
    if (ok) {
        out->count = count;
        optics_sets_split(table, count, layers, out->mua, out->mus, out->g);
        for (int k = 0; ok && k < count; k++) {
            tm_error why = {0};
            ok =
                optics_sets_check(run, out->mua + (size_t)k * layers, out->mus + (size_t)k * layers,
                                  out->g + (size_t)k * layers, 1, &why);
            if (!ok) /* "optics_sets: set 1, ..." of this one line: its number */
                error_set(err, path, lines[k], "set %d%s", k + 1,
                          why.message + sizeof "optics_sets: set 1" - 1);
        }
    }
    free(table);
    if (!ok)
        mua_sets_free(out);
    return ok;
}

int optics_sets_level(const mci_run *run, int count, const double *mus, const double *g)
{
    if (!mus)
        return 0;
    int layers = run->num_layers;
    for (int k = 0; k < count; k++)
        for (int i = 1; i <= layers; i++)
            if (g[(size_t)k * (size_t)layers + (size_t)i - 1] != run->layers[i].g)
                return 2;
    return 1;
}
