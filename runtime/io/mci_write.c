/* Writing runs as an MCML 1.2.2 input file (.mci).
 *
 * Two users: the library's save_mci, and the library's check of a problem
 * given as arrays, which is written as this text and read back through
 * mci_parse, so that arrays obey the very rules and messages of a .mci file
 * (api/problem.c).  Every number is written so that it reads back as
 * the same double (textbuf_add_double). */
#include "mci.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "textbuf.h"

static void add_layer(textbuf *t, const mci_layer *l, int i)
{
    const double v[5] = {l->n, l->mua, l->mus, l->g, l->d};
    for (int k = 0; k < 5; k++) {
        textbuf_add_double(t, v[k]);
        textbuf_add(t, "\t");
    }
    textbuf_add(t, "# layer %d\n", i);
}

static void add_run(textbuf *t, const mci_run *run, int index)
{
    const mci_layer *l = run->layers;
    char format = run->out_format == 'B' ? 'B' : 'A';
    textbuf_add(t, "\n### run %d\n%s\t%c\t# output file name, ASCII/Binary\n", index,
                run->out_name ? run->out_name : "", format);
    textbuf_add(t, "%" PRId64 "\t# No. of photons\n", run->photons);
    textbuf_add_double(t, run->dz);
    textbuf_add(t, "\t");
    textbuf_add_double(t, run->dr);
    textbuf_add(t, "\t# dz, dr [cm]\n%d\t%d\t%d\t# No. of dz, dr, da\n", run->nz, run->nr, run->na);
    textbuf_add(t, "\n%d\t# No. of layers\n# n\tmua\tmus\tg\td\n", run->num_layers);
    textbuf_add_double(t, l[0].n);
    textbuf_add(t, "\t# n for medium above\n");
    for (int i = 1; i <= run->num_layers; i++)
        add_layer(t, &l[i], i);
    textbuf_add_double(t, l[run->num_layers + 1].n);
    textbuf_add(t, "\t# n for medium below\n");
}

char *mci_format(const mci_run *runs, int count)
{
    textbuf t = TEXTBUF_INIT;
    textbuf_add(&t,
                "# MCML 1.2.2 input, written by tmcml\n1.0\t# file version\n%d\t# number of "
                "runs\n",
                count);
    for (int i = 0; i < count; i++)
        add_run(&t, &runs[i], i + 1);
    return textbuf_take(&t);
}

bool mci_write(const char *path, const mci_run *runs, int count, tm_error *err)
{
    char *text = mci_format(runs, count);
    bool ok = text && fs_write_bytes_atomic(path, text, strlen(text), err);
    if (!text)
        error_set(err, path, 0, "out of memory");
    free(text);
    return ok;
}
