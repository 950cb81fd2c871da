/* A problem's shape: what a kernel bakes in, besides its variant knobs and
 * the optical data, and what a tuned variant is chosen for (FFTW's problem,
 * less its data): the layer count, the grid's counts, whether A_rz is
 * scored, the absorption sets and what they score, the source kind, time
 * bins and fiber detectors (PROBLEM_SHAPE_MEMBERS below; docs/design.md,
 * "What a kernel bakes in").  Declared once, here; the spec's members are
 * these (gen/spec.h), a profile entry's class is one (tuner/profile.h), the
 * planner looks one up (tuner/plan.c) and a session plans again when it
 * changes (driver/session.c).
 *
 * Adding a member (a batch mode, ...): a line in PROBLEM_SHAPE_MEMBERS, a
 * row at the end of shape_field_table[] (gen/shape.c: its name in
 * profiles, its range, how a nearest class treats it, its text in
 * messages), what the run gives it (run_view_shape, runtime/io/run_view.c),
 * and the templates that read it (`spec.NAME`).  The spec and its key, the
 * templates' spec table, profile files (read, written, validated, their
 * entries' order), the lookup, the messages and the session loop over the
 * table. */
#ifndef TMCML_SHAPE_H
#define TMCML_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

/* ORDER SHAPE: the members, in the order of shape_field_table[].  One
 * member a line; each comment closes on its own line, so that the line's
 * backslash stays outside it (clang-format aligns only those). */
#define PROBLEM_SHAPE_MEMBERS                                                                      \
    int num_layers;        /* 1 .. SPEC_MAX_LAYERS */                                              \
    int nr, nz, na;        /* grid counts */                                                       \
    bool score_absorption; /* false: the -A variant, no A_rz scoring at all */                     \
    /* Absorption sets (docs/physics.md): 0 for none, else the sets a photon */                    \
    /* scores (1 .. TM_MAX_ABSORPTION_SETS), and whether each scores the 2-D */                    \
    /* arrays (A_rz, Rd_ra, Tt_ra) or only RAT and the 1-D ones.  The CPU */                       \
    /* engine takes sets from its options; a GPU kernel bakes them in: it */                       \
    /* scores the sets' escapes (Rd_ra, Tt_ra: sets_2d). */                                        \
    int num_sets;                                                                                  \
    bool sets_2d;                                                                                  \
    /* With sets: each set also scores its escapes' partial path lengths */                        \
    /* (Rd_path, Tt_path: docs/outputs.md, "Path lengths"). */                                     \
    bool sets_paths;                                                                               \
    /* With sets: each set scores its absorption, a deposit per set per */                         \
    /* interaction into its A_rz (the run's score_absorption is then false: */                     \
    /* the reference's weight is not scored; problem_shape_for_sets). */                           \
    bool sets_absorb;                                                                              \
    /* Where photons start (runtime/io/source.h's source_kind): 0 MCML's */                        \
    /* pencil beam, 1 Gaussian, 2 flat, 3 point, 4 fiber; the parameters are */                    \
    /* the run's data (the layer table's record 0: runtime/io/run_view.c). */                      \
    int source;                                                                                    \
    /* Time-resolved escapes and a fiber detector (docs/outputs.md): scored */                     \
    /* by a run's own kernel when on; their bins and geometry are kernel data. */                  \
    bool time_bins;                                                                                \
    bool fiber;                                                                                    \
    /* With sets: each set also scores the terms of its escapes' */                                \
    /* derivatives (docs/physics.md, "Derivatives"). */                                            \
    bool sets_jacobian;                                                                            \
    /* Optics sets (docs/physics.md, "Optics sets"): 0 none (absorption */                         \
    /* sets), 1 sets of other mus (each interaction reweighted), 2 of other */                     \
    /* g too (each deflection reweighted); their weight sums scored. */                            \
    int sets_optics;                                                                               \
    /* Several fiber detectors (fiber true): their count, 2 .. */                                  \
    /* TM_MAX_DETECTORS, each escape scored against their geometry (kernel */                      \
    /* data) in a loop; 0 with one or none, whose kernel is as before. */                          \
    int fibers;                                                                                    \
    /* Spatial frequencies (docs/physics.md): 0 none, else how many the */                         \
    /* escapes' Hankel transforms are scored at, by a run's own kernel. */                         \
    int fx;                                                                                        \
    /* Modulation frequencies (docs/physics.md, "Frequency domain"): 0 */                          \
    /* none, else how many the escapes' cosine and sine are scored at, by a */                     \
    /* run's own kernel. */                                                                        \
    int mod;

typedef struct problem_shape {
    PROBLEM_SHAPE_MEMBERS
} problem_shape;

typedef enum shape_kind {
    SHAPE_INT, /* an int in lo..hi */
    SHAPE_BOOL /* a bool (JSON true | false) */
} shape_kind;

/* Where a member orders a profile's entries (problem_shape_compare): the
 * leading members first, in the table's order, then the others in the
 * table's order; each by its value, smaller first, but a member that puts
 * true first (A before -A). */
typedef enum shape_sort {
    SHAPE_SORT_AFTER,             /* after the leading members, smaller first */
    SHAPE_SORT_LEADING,           /* before the others, smaller first */
    SHAPE_SORT_LEADING_TRUE_FIRST /* before the others, true (1) before false */
} shape_sort;

/* When a member shows in a shape's text (problem_shape_text). */
typedef enum shape_shown {
    SHAPE_SHOWN_NONZERO,  /* when not 0 (false) */
    SHAPE_SHOWN_ALWAYS,   /* always */
    SHAPE_SHOWN_ZERO,     /* when 0 (false): -A */
    SHAPE_SHOWN_WITH_SETS /* when not 0, in a shape with absorption sets: their flags */
} shape_shown;

typedef struct shape_field {
    const char *name; /* member, profile JSON field of an entry's class, key word */
    shape_kind kind;
    size_t offset; /* in problem_shape */
    int lo, hi;    /* SHAPE_INT: the range a profile's class may hold */
    /* A nearest profile class (tuner/profile.c): 0, the same value only;
     * else the weight of |log(a/b)| in the distance. */
    double nearest_weight;
    shape_sort sort;
    /* In messages: the printf format of its part of the text (its value
     * the one int it takes; NULL: " NAME=%d"), and when it shows. */
    const char *text;
    shape_shown shown;
} shape_field;

/* ORDER SHAPE: the order of a profile class's JSON fields and of their
 * checks (messages name the first bad one).  A new member goes at the end,
 * and its 0 (false) is what shapes before it were: spec_key writes the
 * first PROBLEM_SHAPE_KEYED in its own words ("L7 grid=200x500x30 ...
 * A=1") and appends a later one as " name=value" only when it is not 0, and
 * a profile class names a later one only when it is not 0 (a class that
 * does not name it has 0), so that the keys (and cached cubins) and profile
 * files of the shapes that had none stay as they are. */
#define PROBLEM_SHAPE_KEYED 5
/* The source kinds a shape may name (SOURCE_KINDS of runtime/io/source.h,
 * which gen cannot see: runtime/io/run_view.c asserts that they agree). */
#define SHAPE_SOURCE_KINDS  6
/* Their names, by number, as the templates test them (spec.source_name,
 * templates/source.cu) and --source spells them: source_kind_table's
 * (runtime/io/source.c) in its order (tests/test_source_table.c). */
extern const char *const shape_source_names[SHAPE_SOURCE_KINDS];
extern const shape_field shape_field_table[];
extern const int shape_field_count;

int shape_field_get(const shape_field *f, const problem_shape *s);
void shape_field_set(const shape_field *f, problem_shape *s, int value);

bool problem_shape_equal(const problem_shape *a, const problem_shape *b);

/* What a kernel of absorption sets scores besides their escapes: num_sets
 * sets (0: none), with paths their path lengths, with jacobian their
 * derivatives' terms; optics: the sets are optics sets (sets_optics). */
typedef struct sets_scoring {
    int num_sets;
    bool paths, jacobian;
    int optics;
} sets_scoring;

/* s as the kernel of sets.num_sets absorption sets (0: none) sees it: their
 * escapes (sets_2d), their path lengths (sets_paths) and derivatives
 * (sets_jacobian) as asked, and when s scores absorption their absorption
 * instead of the run's (sets_absorb).  No sets give the run's own shape
 * back. */
void problem_shape_for_sets(problem_shape *s, sets_scoring sets);

/* The order of profile entries in a written file, from the table's sort:
 * layers, then A before -A, then nr, nz, na and the later members.  0
 * exactly when problem_shape_equal. */
int problem_shape_compare(const problem_shape *a, const problem_shape *b);

/* For messages, from the table's texts: "L7 200x500x30" or
 * "L7 200x500x30 -A" (nr x nz x na), then the later members that show
 * ("sets=4 2-D", "source=1", "time", ...). */
void problem_shape_text(const problem_shape *s, char *buf, size_t size);

/* Every member by name, in the table's order ("num_layers=7 nr=200 nz=500
 * na=30 score_absorption=1 num_sets=0 ... fiber=0"), for equality of shapes
 * as text; malloc'd, NULL when out of memory. */
char *problem_shape_key(const problem_shape *s);

/* How far b is from a for a nearest profile class: the weighted |log|
 * ratios of the grid's counts; INFINITY when a member that must match
 * differs. */
double problem_shape_distance(const problem_shape *a, const problem_shape *b);

#endif
