/* A problem's shape, its table of members (gen/shape.h). */
#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "textbuf.h"
#include "tm_limits.h"

/* A row's first fields: the member's name, kind and place. */
#define SHAPE_INT_MEMBER(member)                                                                   \
    .name = #member, .kind = SHAPE_INT, .offset = offsetof(problem_shape, member)
#define SHAPE_BOOL_MEMBER(member)                                                                  \
    .name = #member, .kind = SHAPE_BOOL, .offset = offsetof(problem_shape, member), .lo = 0, .hi = 1

/* ORDER SHAPE (gen/shape.h).  The grid's counts are at most 2^24 in a
 * profile, the layers SPEC_MAX_LAYERS; a nearest class has the same layer
 * count and mode, the angles weigh a quarter of r and z.  A profile's
 * entries go by layer count, then A before -A, then the rest in this
 * order; the text reads "L7 200x500x30 -A sets=4 2-D paths A source=1 time
 * fiber jacobian optics=2 fibers=3 fx=32 mod=4". */
const char *const shape_source_names[SHAPE_SOURCE_KINDS] = {"pencil", "gaussian", "flat",
                                                            "point",  "fiber",    "oblique"};

const shape_field shape_field_table[] = {
    {SHAPE_INT_MEMBER(num_layers), .lo = 1, .hi = SPEC_MAX_LAYERS, .sort = SHAPE_SORT_LEADING,
     .text = "L%d", .shown = SHAPE_SHOWN_ALWAYS},
    {SHAPE_INT_MEMBER(nr), .lo = 1, .hi = 1 << 24, .nearest_weight = 1, .text = " %d",
     .shown = SHAPE_SHOWN_ALWAYS},
    {SHAPE_INT_MEMBER(nz), .lo = 1, .hi = 1 << 24, .nearest_weight = 1, .text = "x%d",
     .shown = SHAPE_SHOWN_ALWAYS},
    {SHAPE_INT_MEMBER(na), .lo = 1, .hi = 1 << 24, .nearest_weight = 0.25, .text = "x%d",
     .shown = SHAPE_SHOWN_ALWAYS},
    {SHAPE_BOOL_MEMBER(score_absorption), .sort = SHAPE_SORT_LEADING_TRUE_FIRST, .text = " -A",
     .shown = SHAPE_SHOWN_ZERO},
    {SHAPE_INT_MEMBER(num_sets), .lo = 0, .hi = TM_MAX_ABSORPTION_SETS, .text = " sets=%d"},
    {SHAPE_BOOL_MEMBER(sets_2d), .text = " 2-D", .shown = SHAPE_SHOWN_WITH_SETS},
    {SHAPE_BOOL_MEMBER(sets_paths), .text = " paths", .shown = SHAPE_SHOWN_WITH_SETS},
    {SHAPE_BOOL_MEMBER(sets_absorb), .text = " A", .shown = SHAPE_SHOWN_WITH_SETS},
    {SHAPE_INT_MEMBER(source), .lo = 0, .hi = SHAPE_SOURCE_KINDS - 1},
    {SHAPE_BOOL_MEMBER(time_bins), .text = " time"},
    {SHAPE_BOOL_MEMBER(fiber), .text = " fiber"},
    {SHAPE_BOOL_MEMBER(sets_jacobian), .text = " jacobian", .shown = SHAPE_SHOWN_WITH_SETS},
    {SHAPE_INT_MEMBER(sets_optics), .lo = 0, .hi = 2, .text = " optics=%d",
     .shown = SHAPE_SHOWN_WITH_SETS},
    {SHAPE_INT_MEMBER(fibers), .lo = 0, .hi = TM_MAX_DETECTORS, .text = " fibers=%d"},
    {SHAPE_INT_MEMBER(fx), .lo = 0, .hi = TM_MAX_GPU_SPATIAL_FREQUENCIES, .text = " fx=%d"},
    {SHAPE_INT_MEMBER(mod), .lo = 0, .hi = TM_MAX_GPU_MODULATIONS, .text = " mod=%d"},
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

void problem_shape_for_sets(problem_shape *s, sets_scoring sets)
{
    int num_sets = sets.num_sets;
    bool absorb = s->score_absorption || s->sets_absorb;
    s->num_sets = num_sets;
    s->sets_2d = num_sets > 0;
    s->sets_paths = num_sets > 0 && sets.paths;
    s->sets_jacobian = num_sets > 0 && sets.jacobian;
    s->sets_optics = num_sets > 0 ? sets.optics : 0;
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

/* f's value in a's order against b's: < 0 when a's comes first. */
static int shape_field_order(const shape_field *f, const problem_shape *a, const problem_shape *b)
{
    int x = shape_field_get(f, a), y = shape_field_get(f, b);
    if (f->sort == SHAPE_SORT_LEADING_TRUE_FIRST) {
        x = !x;
        y = !y;
    }
    return (x > y) - (x < y);
}

int problem_shape_compare(const problem_shape *a, const problem_shape *b)
{
    for (int leading = 1; leading >= 0; leading--)
        for (int i = 0; i < shape_field_count; i++) {
            const shape_field *f = &shape_field_table[i];
            if ((f->sort != SHAPE_SORT_AFTER) != leading)
                continue;
            int order = shape_field_order(f, a, b);
            if (order != 0)
                return order;
        }
    return 0;
}

static bool shape_field_shown(const shape_field *f, const problem_shape *s)
{
    int v = shape_field_get(f, s);
    switch (f->shown) {
    case SHAPE_SHOWN_ALWAYS: return true;
    case SHAPE_SHOWN_ZERO: return v == 0;
    case SHAPE_SHOWN_WITH_SETS: return v != 0 && s->num_sets > 0;
    case SHAPE_SHOWN_NONZERO: break;
    }
    return v != 0;
}

void problem_shape_text(const problem_shape *s, char *buf, size_t size)
{
    size_t at = 0;
    if (size > 0)
        buf[0] = '\0';
    for (int i = 0; i < shape_field_count && at + 1 < size; i++) {
        const shape_field *f = &shape_field_table[i];
        if (!shape_field_shown(f, s))
            continue;
        int n = f->text ? snprintf(buf + at, size - at, f->text, shape_field_get(f, s))
                        : snprintf(buf + at, size - at, " %s=%d", f->name, shape_field_get(f, s));
        at = n < 0 ? size : at + (size_t)n;
    }
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
