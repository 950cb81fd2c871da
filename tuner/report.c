/* The tuner's results as a table and a CSV (tuner/report.h). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

static int by_speed(const void *pa, const void *pb)
{
    const tune_candidate *a = *(const tune_candidate *const *)pa;
    const tune_candidate *b = *(const tune_candidate *const *)pb;
    bool ma = a->status == TUNE_MEASURED, mb = b->status == TUNE_MEASURED;
    if (ma != mb)
        return ma ? -1 : 1;
    if (a->photons_per_second != b->photons_per_second)
        return a->photons_per_second > b->photons_per_second ? -1 : 1;
    return a < b ? -1 : 1;
}

void tune_print_table(FILE *f, const tune_result *res)
{
    const tune_candidate **order = malloc((size_t)res->count * sizeof *order);
    if (!order)
        return;
    for (int i = 0; i < res->count; i++)
        order[i] = &res->candidates[i];
    qsort(order, (size_t)res->count, sizeof *order, by_speed);
    double ref = res->reference >= 0 ? res->candidates[res->reference].photons_per_second : 0;
    fprintf(f, "%-9s", "stage");
    for (int k = 0; k < knob_count; k++)
        fprintf(f, " %-*s", knob_column_width(&knob_table[k]), knob_table[k].name);
    fprintf(f, " %-4s %12s %8s %5s %6s\n", "regs", "photons/s", "vs heur", "b/SM", "capt");
    for (int i = 0; i < res->count; i++) {
        const tune_candidate *c = order[i];
        fprintf(f, "%-9s", c->stage);
        for (int k = 0; k < knob_count; k++) {
            char value[64];
            knob_format(&knob_table[k], &c->config, value, sizeof value);
            fprintf(f, " %-*s", knob_column_width(&knob_table[k]), value);
        }
        fputc(' ', f);
        if (c->status == TUNE_MEASURED)
            fprintf(f, "%-4d %12.4g %7.3fx %5d %5.1f%%%s\n", c->registers, c->photons_per_second,
                    ref > 0 ? c->photons_per_second / ref : 0.0, c->blocks_per_sm,
                    100 * c->captured, c == &res->candidates[res->winner] ? "  <- winner" : "");
        else
            fprintf(f, "%s: %s\n", tune_status_name(c->status), c->why);
    }
    free(order);
}

static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A knob's CSV column(s) (knob_field_name): a switch as 0 or 1, a choice
 * by name. */
static void csv_knob_header(FILE *f, const knob *k)
{
    for (int i = 0; i < knob_field_count(k); i++) {
        char name[64];
        knob_field_name(k, i, name, sizeof name);
        fprintf(f, ",%s", name);
    }
}

static void csv_knob_value(FILE *f, const knob *k, const kernel_knobs *v)
{
    char text[64];
    if (k->kind == KNOB_CHOICE) {
        knob_format(k, v, text, sizeof text);
        fprintf(f, ",%s", text);
        return;
    }
    for (int i = 0; i < knob_field_count(k); i++)
        fprintf(f, ",%d", knob_field_get(k, v, i));
}

static bool write_rows(FILE *f, void *ctx, tm_error *err)
{
    (void)err;
    const tune_result *res = ctx;
    fputs("stage", f);
    for (int k = 0; k < knob_count; k++)
        csv_knob_header(f, &knob_table[k]);
    fprintf(
        f,
        ",status,registers,blocks_per_sm,captured_fraction,pilot_photons,compile_seconds,"
        "median_kernel_seconds,photons_per_second,steps_per_second,whole_launch_photons_per_second,"
        "kernel_seconds,steady_rates,why\n");
    for (int i = 0; i < res->count; i++) {
        const tune_candidate *c = &res->candidates[i];
        fputs(c->stage, f);
        for (int k = 0; k < knob_count; k++)
            csv_knob_value(f, &knob_table[k], &c->config);
        fprintf(f, ",%s,%d,%d,%.6f,%llu,%.4f,%.6f,%.6g,%.6g,%.6g,", tune_status_name(c->status),
                c->registers, c->blocks_per_sm, c->captured, (unsigned long long)res->pilot_photons,
                c->compile_seconds, c->median_seconds, c->photons_per_second,
                c->photons_per_second * res->steps_per_photon,
                c->median_seconds > 0 ? (double)res->pilot_photons / c->median_seconds : 0.0);
        for (int k = 0; k < c->timings; k++)
            fprintf(f, "%s%.6f", k ? " " : "", c->seconds[k]);
        fputc(',', f);
        for (int k = 0; k < c->timings; k++)
            fprintf(f, "%s%.6g", k ? " " : "", c->rates[k]);
        fputc(',', f);
        csv_text(f, c->why);
        fputc('\n', f);
    }
    return true;
}

bool tune_write_csv(const char *path, const tune_result *res, tm_error *err)
{
    return fs_write_atomic(path, write_rows, (void *)res, err);
}
