/* Where photons start: the source of a run (docs/physics.md, "Sources").
 *
 * MCML has one source, the pencil beam at r = 0 along +z; tmcml adds broad
 * beams (Gaussian, flat), a buried isotropic point and a fiber with a
 * numerical aperture.  A source is not an .mci field (the .mci stays
 * MCML's): it comes from --source, the library and Python, and is a member
 * of the run (mci_run.source) so that it travels wherever the run goes.
 * The zero value is the pencil beam, so a run that says nothing is MCML's. */
#ifndef TMCML_SOURCE_H
#define TMCML_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The kinds, in the order of their number in the problem's shape and the
 * library's TMCML_SOURCE_ constants: append, never reorder. */
typedef enum source_kind {
    SOURCE_PENCIL = 0, /* MCML's: r = 0, along +z */
    SOURCE_GAUSSIAN,   /* normal incidence, irradiance exp(-2 r^2 / W^2) */
    SOURCE_FLAT,       /* normal incidence, uniform over r <= R */
    SOURCE_POINT,      /* isotropic, at depth z0 on the axis, weight 1 */
    SOURCE_FIBER,      /* uniform over r <= R, directions in the NA's cone */
    SOURCE_OBLIQUE,    /* x = y = 0, in the x-z plane at a polar angle, refracted */
    SOURCE_KINDS
} source_kind;

typedef struct source_desc {
    source_kind kind;
    double radius; /* Gaussian: 1/e^2 radius W; flat, fiber: radius R [cm] */
    double depth;  /* point: z0 [cm] */
    double na;     /* fiber: numerical aperture, n_above sin(theta_max) */
    double angle;  /* oblique: polar angle of incidence in the medium above [deg] */
} source_desc;

/* A kind's parameter: one of the numbers after its name in the text form,
 * in order (the library's a, then b). */
typedef struct source_param {
    const char *symbol; /* in the text form: "W" in gaussian:W */
    const char *what;   /* in messages: "1/e^2 radius W" */
    const char *key;    /* in the JSON summary's "source" and "units": "w" */
    const char *unit;   /* "cm"; "deg" for an angle; "-" for a ratio */
    size_t field;       /* the double of source_desc that holds it */
    bool zero_allowed;  /* its range: >= 0, else > 0 (and finite) */
    /* Its range's upper end, excluded (the oblique beam's 90 degrees); 0
     * for none.  above_most says why a value at or beyond it is refused. */
    double below;
    const char *above_most;
} source_param;

#define SOURCE_MAX_PARAMS 2

/* A kind, declared once: everything that names a kind or its parameters
 * (the text form and its parsing, the checks of the values, the
 * description, the JSON summary, the library's a and b, the kernel's
 * record of the source: runtime/io/run_view.c) reads its row.  Its number
 * (its source_kind) is the shape's source, which the templates test
 * (`spec.source`, templates/source.cu) and the engines branch on. */
typedef struct source_kind_row {
    const char *name; /* --source, the JSON's "kind": "gaussian" */
    int params;       /* how many numbers follow the name (0 .. SOURCE_MAX_PARAMS) */
    source_param param[SOURCE_MAX_PARAMS];
    /* For people: a printf format of its parameters in order, %.9g each. */
    const char *describe;
} source_kind_row;

extern const source_kind_row source_kind_table[SOURCE_KINDS];

struct mci_run;

/* kind's row; NULL for a number that is no kind. */
const source_kind_row *source_kind_of(source_kind kind);

/* The kind's name as --source spells it ("pencil", "gaussian", ...). */
const char *source_kind_name(source_kind kind);

/* A source of kind with its parameters v[0 .. params - 1] (a, b), every
 * other field 0; kind must be a kind. */
source_desc source_make(source_kind kind, const double *v);

/* Parameter i (0: a, 1: b) of s; 0 where its kind has fewer. */
double source_value(const source_desc *s, int i);

/* True for MCML's pencil beam (the zero value). */
static inline bool source_is_pencil(const source_desc *s) { return s->kind == SOURCE_PENCIL; }

/* True for a source whose photons are not spread symmetrically about the
 * z axis (the oblique beam): the cylindrical outputs (Rd_r, A_rz ...) are
 * then azimuthal averages about the entry point, and the outputs that
 * assume the symmetry are refused (source_require_axial). */
static inline bool source_breaks_symmetry(const source_desc *s)
{
    return s->kind == SOURCE_OBLIQUE;
}

/* The oblique beam's polar angle in the first layer it scatters in,
 * from Snell's law: sin theta_t = n_above sin(angle) / n_first, as its
 * sine and cosine (0 and 1 for every other source: normal incidence). */
void source_refracted(const source_desc *s, double n_above, double n_first, double *sin_t,
                      double *cos_t);

/* The cosine of the oblique beam's angle of incidence in the medium above
 * (1 for every other source). */
double source_incidence_cos(const source_desc *s);

/* "pencil", "gaussian:W", "flat:R", "point:Z", "fiber:R:NA" or
 * "oblique:ANGLE" into *out.
 * A bad text gets a message that starts with `what` (e.g. "--source") and
 * quotes the value at fault; the layers' bounds are checked by
 * source_check. */
bool source_parse(const char *text, const char *what, source_desc *out, tm_error *err);

/* The parameters' ranges alone (W, R > 0 for the beams; R >= 0 and
 * 0 <= NA for the fiber; z0 > 0 for the point; 0 <= ANGLE < 90 degrees
 * for the oblique beam): what source_parse checks, for the library's
 * setter. */
bool source_check_values(const source_desc *s, const char *what, tm_error *err);

/* The source against the run's layers: a fiber's NA at most the medium
 * above's n; a point strictly inside the stack and not on a boundary
 * between layers (refused: which layer's properties it starts in would be
 * a convention); an oblique beam that enters (n above sin ANGLE below the
 * n of each layer it crosses to the first turbid one: no total
 * reflection at the surface). */
bool source_check_run(const source_desc *s, const struct mci_run *run, const char *what,
                      tm_error *err);

/* The text source_parse reads back as the same doubles ("gaussian:0.1"). */
void source_text(const source_desc *s, char *buf, size_t size);

/* For people: "Gaussian beam, 1/e^2 radius 0.1 cm". */
void source_describe(const source_desc *s, char *buf, size_t size);

/* Convolution with a beam (runtime/io/conv.c) needs the pencil's response:
 * false, naming run's source, for any other. */
bool source_require_pencil(const struct mci_run *run, const char *what, tm_error *err);

/* An output that assumes light spread symmetrically about the z axis,
 * asked by option (e.g. "--time", or a library setter's words) of a run
 * whose source breaks the symmetry (source_breaks_symmetry): false, with
 * "OPTION: assumes a beam along the axis ..." naming the source. */
bool source_require_axial(const source_desc *s, const char *option, tm_error *err);

/* The layer (1-based) a point source at depth z0 starts in; the run must
 * have passed source_check_run. */
int source_point_layer(const source_desc *s, const struct mci_run *run);

#endif
