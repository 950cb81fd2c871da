/* The tuner's results as a table and a CSV (report.c). */
#ifndef TMCML_REPORT_H
#define TMCML_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "search.h"

/* Every candidate, one row each (CSV with a header), written atomically. */
bool tune_write_csv(const char *path, const tune_result *res, tm_error *err);

/* The table of candidates, fastest first, then the ones not measured. */
void tune_print_table(FILE *f, const tune_result *res);

#endif
