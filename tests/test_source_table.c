/* The source kinds' table (runtime/io/source.c): every text form, message
 * and description that follows from a kind's row, word for word as the
 * hand-written code had them, and the parameters in order (the library's a
 * and b) in the fields the engines read. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "shape.h"
#include "source.h"

#define FORMS                                                                                      \
    "pencil, gaussian:W, flat:R, point:Z, fiber:R:NA or oblique:ANGLE (cm; ANGLE in degrees)"

/* text parses to a source whose text, description and a, b are these. */
static void check_kind(const char *text, source_kind kind, const char *describe, double a, double b)
{
    source_desc s;
    tm_error err = {0};
    CHECK_MSG(source_parse(text, "source", &s, &err), "%s: %s", text, err.message);
    char back[160], words[160];
    source_text(&s, back, sizeof back);
    source_describe(&s, words, sizeof words);
    CHECK_MSG(s.kind == kind && strcmp(back, text) == 0, "%s reads back as %s", text, back);
    CHECK_MSG(strcmp(words, describe) == 0, "%s: \"%s\"", text, words);
    CHECK_MSG(source_value(&s, 0) == a && source_value(&s, 1) == b && source_value(&s, 2) == 0.0,
              "%s: a %g b %g", text, source_value(&s, 0), source_value(&s, 1));
    /* a and b made into a source are this one, field for field. */
    const double v[] = {a, b};
    source_desc made = source_make(kind, v);
    CHECK_MSG(made.kind == s.kind && made.radius == s.radius && made.depth == s.depth &&
                  made.na == s.na && made.angle == s.angle,
              "%s: source_make differs", text);
}

static void check_refused(const char *text, const char *message)
{
    source_desc s;
    tm_error err = {0};
    CHECK_MSG(!source_parse(text, "--source", &s, &err), "%s accepted", text);
    CHECK_MSG(strcmp(err.message, message) == 0, "%s: \"%s\"", text, err.message);
}

static void test_kinds(void)
{
    check_kind("pencil", SOURCE_PENCIL, "pencil beam (MCML's)", 0, 0);
    check_kind("gaussian:0.1", SOURCE_GAUSSIAN,
               "Gaussian beam, 1/e^2 radius 0.1 cm, normal incidence", 0.1, 0);
    check_kind("flat:0.05", SOURCE_FLAT, "flat beam, radius 0.05 cm, normal incidence", 0.05, 0);
    check_kind("point:0.0123", SOURCE_POINT,
               "isotropic point at depth 0.0123 cm on the axis, weight 1", 0.0123, 0);
    check_kind("fiber:0.02:0.22", SOURCE_FIBER, "fiber, radius 0.02 cm, NA 0.22, at the surface",
               0.02, 0.22);
    check_kind("fiber:0:0", SOURCE_FIBER, "fiber, radius 0 cm, NA 0, at the surface", 0, 0);
    check_kind("oblique:45", SOURCE_OBLIQUE,
               "oblique beam at 45 degrees of incidence in the x-z plane, entering at x = y = 0",
               45, 0);
    check_kind("oblique:0", SOURCE_OBLIQUE,
               "oblique beam at 0 degrees of incidence in the x-z plane, entering at x = y = 0", 0,
               0);
    check_kind("oblique:89.5", SOURCE_OBLIQUE,
               "oblique beam at 89.5 degrees of incidence in the x-z plane, entering at x = y = 0",
               89.5, 0);
    /* The fields the engines read (cpu_source.c, optics.c) by name. */
    const double v[] = {0.5, 0.25};
    CHECK(source_make(SOURCE_GAUSSIAN, v).radius == 0.5 &&
          source_make(SOURCE_FLAT, v).radius == 0.5);
    CHECK(source_make(SOURCE_POINT, v).depth == 0.5 && source_make(SOURCE_POINT, v).radius == 0);
    CHECK(source_make(SOURCE_FIBER, v).radius == 0.5 && source_make(SOURCE_FIBER, v).na == 0.25);
    CHECK(source_make(SOURCE_GAUSSIAN, v).na == 0 && source_make(SOURCE_PENCIL, v).radius == 0);
    CHECK(source_make(SOURCE_OBLIQUE, v).angle == 0.5 &&
          source_make(SOURCE_OBLIQUE, v).radius == 0);
    CHECK(source_breaks_symmetry(&(source_desc){.kind = SOURCE_OBLIQUE}) &&
          !source_breaks_symmetry(&(source_desc){.kind = SOURCE_FIBER}));
    CHECK(strcmp(source_kind_name(SOURCE_FIBER), "fiber") == 0);
    CHECK(strcmp(source_kind_name((source_kind)SOURCE_KINDS), "unknown") == 0);
    CHECK(source_kind_of((source_kind)SOURCE_KINDS) == NULL &&
          source_kind_of((source_kind)-1) == NULL);
}

static void test_messages(void)
{
    check_refused("laser:1", "--source \"laser:1\": expected " FORMS);
    check_refused("fiber:0.1", "--source \"fiber:0.1\": expected " FORMS);
    check_refused("gaussian:1:2", "--source \"gaussian:1:2\": expected " FORMS);
    check_refused("flat", "--source \"flat\": expected " FORMS);
    check_refused("flat:x", "--source \"flat:x\": \"x\" is not a number");
    check_refused("gaussian:0",
                  "--source \"gaussian:0\": the 1/e^2 radius W must be a finite number of cm > 0 "
                  "(got 0)");
    check_refused("flat:-1",
                  "--source \"flat:-1\": the radius R must be a finite number of cm > 0 (got -1)");
    check_refused("point:0",
                  "--source \"point:0\": the depth Z must be a finite number of cm > 0 (got 0)");
    check_refused("fiber:-1:0.2", "--source \"fiber:-1:0.2\": the fiber's radius R must be a "
                                  "finite number of cm >= 0 (got -1)");
    check_refused("fiber:0.1:-0.5", "--source \"fiber:0.1:-0.5\": the fiber's NA must be a "
                                    "finite number >= 0 (got -0.5)");
    check_refused("gaussian:inf", "--source \"gaussian:inf\": the 1/e^2 radius W must be a finite "
                                  "number of cm > 0 (got inf)");
    /* The oblique beam's angle: [0, 90) degrees, the value quoted. */
    check_refused("oblique:90", "--source \"oblique:90\": the angle of incidence must be below 90 "
                                "degrees (got 90): at 90 degrees or more the beam would not "
                                "enter the tissue");
    check_refused("oblique:135", "--source \"oblique:135\": the angle of incidence must be below "
                                 "90 degrees (got 135): at 90 degrees or more the beam would not "
                                 "enter the tissue");
    check_refused("oblique:-10", "--source \"oblique:-10\": the angle of incidence must be a "
                                 "finite number of degrees >= 0 (got -10)");
    check_refused("oblique:nan", "--source \"oblique:nan\": the angle of incidence must be a "
                                 "finite number of degrees >= 0 (got nan)");
    check_refused("oblique:inf", "--source \"oblique:inf\": the angle of incidence must be a "
                                 "finite number of degrees >= 0 (got inf)");
    check_refused("oblique", "--source \"oblique\": expected " FORMS);
    check_refused("oblique:", "--source \"oblique:\": \"\" is not a number");
    check_refused("oblique:45:1", "--source \"oblique:45:1\": expected " FORMS);
    check_refused("oblique:45deg", "--source \"oblique:45deg\": \"45deg\" is not a number");
    source_desc tiny = {.kind = SOURCE_FIBER, .radius = 0.01, .na = 2e-310};
    tm_error err = {0};
    CHECK(!source_check_values(&tiny, "source", &err));
    CHECK_MSG(strcmp(err.message, "source \"fiber:0.01:1.99999999999999e-310\": 2e-310 is too "
                                  "small to compute with: a number other than 0 must be at least "
                                  "1e-300") == 0,
              "\"%s\"", err.message);
    source_desc unknown = {.kind = (source_kind)7};
    CHECK(!source_check_values(&unknown, "source", &err));
    CHECK_MSG(strcmp(err.message, "source: unknown source kind 7") == 0, "\"%s\"", err.message);
}

/* Each row's parameters: named, with a unit and a field of source_desc. */
static void test_table(void)
{
    for (int k = 0; k < SOURCE_KINDS; k++) {
        const source_kind_row *row = &source_kind_table[k];
        CHECK(row->name && row->describe && row->params >= 0 && row->params <= SOURCE_MAX_PARAMS);
        for (int i = 0; i < row->params; i++) {
            const source_param *p = &row->param[i];
            CHECK_MSG(p->symbol && p->what && p->key && p->unit, "%s: parameter %d", row->name, i);
            CHECK(p->field == offsetof(source_desc, radius) ||
                  p->field == offsetof(source_desc, depth) ||
                  p->field == offsetof(source_desc, na) ||
                  p->field == offsetof(source_desc, angle));
        }
    }
}

/* The templates name the kinds as the table does (gen's shape_source_names,
 * spec.source_name), number for number. */
static void test_template_names(void)
{
    for (int k = 0; k < SOURCE_KINDS; k++)
        CHECK_MSG(strcmp(shape_source_names[k], source_kind_name((source_kind)k)) == 0,
                  "kind %d: the templates' \"%s\", the table's \"%s\"", k, shape_source_names[k],
                  source_kind_name((source_kind)k));
}

int main(void)
{
    test_template_names();
    test_kinds();
    test_messages();
    test_table();
    return check_summary("test_source_table");
}
