/* A problem's shape, its table of members (gen/shape.h). */
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "textbuf.h"
#include "tm_limits.h"

/* A row of shape_field_table[], on one line as the table's rows are.  Left
 * alone by clang-format: version 14 reads a macro body that opens with a
 * brace as a function's and, with the house style's braces on their own
 * line, splits the row over three lines with #name in column 0. */
// clang-format off
#define SHAPE_INT_FIELD(name, lo, hi, weight) \
    {#name, SHAPE_INT, offsetof(problem_shape, name), lo, hi, weight}
#define SHAPE_BOOL_FIELD(name) {#name, SHAPE_BOOL, offsetof(problem_shape, name), 0, 1, 0}
// clang-format on

/* ORDER SHAPE (gen/shape.h).  The grid's counts are at most 2^24 in a
 * profile, the layers SPEC_MAX_LAYERS; a nearest class has the same layer
 * count and mode, the angles weigh a quarter of r and z. */
const shape_field shape_field_table[] = {
    SHAPE_INT_FIELD(num_layers, 1, SPEC_MAX_LAYERS, 0),
    SHAPE_INT_FIELD(nr, 1, 1 << 24, 1),
    SHAPE_INT_FIELD(nz, 1, 1 << 24, 1),
    SHAPE_INT_FIELD(na, 1, 1 << 24, 0.25),
    SHAPE_BOOL_FIELD(score_absorption),
    SHAPE_INT_FIELD(num_sets, 0, TM_MAX_ABSORPTION_SETS, 0),
    SHAPE_BOOL_FIELD(sets_2d),
    SHAPE_BOOL_FIELD(sets_paths),
    SHAPE_BOOL_FIELD(sets_absorb),
    SHAPE_INT_FIELD(source, 0, SHAPE_SOURCE_KINDS - 1, 0),
    SHAPE_BOOL_FIELD(time_bins),
    SHAPE_BOOL_FIELD(fiber),
};
const int shape_field_count = sizeof shape_field_table / sizeof *shape_field_table;

int shape_field_get(const shape_field *f, const problem_shape *s)
{
    const char *p = (const char *)s + f->offset;
    return f->kind == SHAPE_BOOL ? *(const bool *)p : *(const int *)p;
}

void shape_field_set(const shape_field *f, problem_shape *s, int value)
{
    char *p = (char *)s + f->offset;
    if (f->kind == SHAPE_BOOL)
        *(bool *)p = value != 0;
    else
        *(int *)p = value;
}

void problem_shape_for_sets(problem_shape *s, int num_sets, bool paths)
{
    bool absorb = s->score_absorption || s->sets_absorb;
    s->num_sets = num_sets;
    s->sets_2d = num_sets > 0;
    s->sets_paths = num_sets > 0 && paths;
    s->sets_absorb = num_sets > 0 && absorb;
    s->score_absorption = num_sets == 0 && absorb;
}

bool problem_shape_equal(const problem_shape *a, const problem_shape *b)
{
    for (int i = 0; i < shape_field_count; i++)
        if (shape_field_get(&shape_field_table[i], a) != shape_field_get(&shape_field_table[i], b))
            return false;
    return true;
}

int problem_shape_compare(const problem_shape *a, const problem_shape *b)
{
    int ka[12] = {
        a->num_layers, !a->score_absorption, a->nr,          a->nz,     a->na,        a->num_sets,
        a->sets_2d,    a->sets_paths,        a->sets_absorb, a->source, a->time_bins, a->fiber};
    int kb[12] = {
        b->num_layers, !b->score_absorption, b->nr,          b->nz,     b->na,        b->num_sets,
        b->sets_2d,    b->sets_paths,        b->sets_absorb, b->source, b->time_bins, b->fiber};
    for (int i = 0; i < 12; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

void problem_shape_text(const problem_shape *s, char *buf, size_t size)
{
    char sets[48] = "";
    if (s->num_sets > 0)
        snprintf(sets, sizeof sets, " sets=%d%s%s%s", s->num_sets, s->sets_2d ? " 2-D" : "",
                 s->sets_paths ? " paths" : "", s->sets_absorb ? " A" : "");
    char source[24] = "";
    if (s->source != 0)
        snprintf(source, sizeof source, " source=%d", s->source);
    snprintf(buf, size, "L%d %dx%dx%d%s%s%s%s%s", s->num_layers, s->nr, s->nz, s->na,
             s->score_absorption ? "" : " -A", sets, source, s->time_bins ? " time" : "",
             s->fiber ? " fiber" : "");
}

char *problem_shape_key(const problem_shape *s)
{
    textbuf t = TEXTBUF_INIT;
    for (int i = 0; i < shape_field_count; i++)
        textbuf_add(&t, "%s%s=%d", i ? " " : "", shape_field_table[i].name,
                    shape_field_get(&shape_field_table[i], s));
    return textbuf_take(&t);
}

double problem_shape_distance(const problem_shape *a, const problem_shape *b)
{
    double d = 0;
    for (int i = 0; i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        int x = shape_field_get(f, a), y = shape_field_get(f, b);
        if (f->nearest_weight == 0 && x != y)
            return INFINITY;
        if (f->nearest_weight != 0)
            d += f->nearest_weight * fabs(log((double)x / y));
    }
    return d;
}
