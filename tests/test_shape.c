/* Tests of the problem shape's table (gen/shape.c): the order of profile
 * entries and the text in messages follow from its rows, as the documented
 * rule says (layers, then A before -A, then nr, nz, na and the later
 * members in the table's order; "L7 200x500x30 -A sets=4 2-D ..."), and
 * compare agrees with equal on every member. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "shape.h"

/* The documented order, written out member by member: what the table's
 * sort must give (a member added later goes after these: its row's sort,
 * SHAPE_SORT_AFTER, says so). */
static int documented_order(const problem_shape *a, const problem_shape *b)
{
    int ka[] = {
        a->num_layers, !a->score_absorption, a->nr,          a->nz,     a->na,        a->num_sets,
        a->sets_2d,    a->sets_paths,        a->sets_absorb, a->source, a->time_bins, a->fiber};
    int kb[] = {
        b->num_layers, !b->score_absorption, b->nr,          b->nz,     b->na,        b->num_sets,
        b->sets_2d,    b->sets_paths,        b->sets_absorb, b->source, b->time_bins, b->fiber};
    for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    /* Members added after these order after them, in the table's order. */
    for (int i = (int)(sizeof ka / sizeof *ka); i < shape_field_count; i++) {
        int x = shape_field_get(&shape_field_table[i], a);
        int y = shape_field_get(&shape_field_table[i], b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int sign(int v) { return (v > 0) - (v < 0); }

/* Shapes with every member drawn from a few values (so that many pairs tie
 * on the leading members), from a fixed seed. */
static problem_shape drawn_shape(unsigned *state)
{
    problem_shape s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        *state = *state * 1103515245u + 12345u;
        int pick = (int)((*state >> 16) % 3);
        int v = f->kind == SHAPE_BOOL ? pick & 1 : f->lo + pick;
        shape_field_set(f, &s, v > f->hi ? f->hi : v);
    }
    return s;
}

static void test_compare(void)
{
    enum { N = 200 };
    problem_shape *s = malloc(N * sizeof *s);
    CHECK(s != NULL);
    if (!s)
        return;
    unsigned state = 43;
    for (int i = 0; i < N; i++)
        s[i] = drawn_shape(&state);
    int disagree = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int c = problem_shape_compare(&s[i], &s[j]);
            if (sign(c) != documented_order(&s[i], &s[j]) ||
                (c == 0) != problem_shape_equal(&s[i], &s[j]))
                disagree++;
        }
    CHECK_MSG(disagree == 0, "%d pairs ordered against the documented rule", disagree);
    free(s);
    /* Every member alone orders two shapes, and the larger value goes
     * second but for A, which goes first. */
    problem_shape base = {.num_layers = 3, .nr = 10, .nz = 10, .na = 10, .score_absorption = false};
    for (int i = 0; i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        problem_shape more = base;
        shape_field_set(f, &more, shape_field_get(f, &base) + 1);
        int want = strcmp(f->name, "score_absorption") == 0 ? 1 : -1;
        CHECK_MSG(sign(problem_shape_compare(&base, &more)) == want &&
                      sign(problem_shape_compare(&more, &base)) == -want,
                  "%s does not order shapes", f->name);
    }
}

static void check_text(const problem_shape *s, size_t size, const char *want)
{
    char buf[128];
    memset(buf, '#', sizeof buf);
    problem_shape_text(s, buf, size);
    CHECK_MSG(strcmp(buf, want) == 0, "\"%s\", not \"%s\"", buf, want);
}

static void test_text(void)
{
    problem_shape s = {.num_layers = 7, .nr = 200, .nz = 500, .na = 30, .score_absorption = true};
    check_text(&s, 128, "L7 200x500x30");
    s.score_absorption = false;
    check_text(&s, 128, "L7 200x500x30 -A");
    /* The sets' flags show beside a set count only. */
    s.sets_2d = s.sets_paths = s.sets_absorb = true;
    check_text(&s, 128, "L7 200x500x30 -A");
    s.num_sets = 4;
    s.source = 3;
    s.time_bins = s.fiber = true;
    check_text(&s, 128, "L7 200x500x30 -A sets=4 2-D paths A source=3 time fiber");
    s.sets_paths = false;
    check_text(&s, 128, "L7 200x500x30 -A sets=4 2-D A source=3 time fiber");
    s.fibers = 3; /* several detectors: their count */
    check_text(&s, 128, "L7 200x500x30 -A sets=4 2-D A source=3 time fiber fibers=3");
    s.fibers = 0;
    /* Cut short as snprintf cuts: the buffer's first size - 1 bytes. */
    check_text(&s, 6, "L7 20");
    check_text(&s, 17, "L7 200x500x30 -A");
    check_text(&s, 1, "");
}

int main(void)
{
    test_compare();
    test_text();
    return check_summary("test_shape");
}
