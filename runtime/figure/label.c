#include "label.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE_MAX 160 /* longest run of text between script marks drawn at once */

/* ---- numbers --------------------------------------------------------------- */

static void trim_zeros(char *s)
{
    if (!strchr(s, '.'))
        return;
    size_t n = strlen(s);
    while (s[n - 1] == '0')
        s[--n] = '\0';
    if (s[n - 1] == '.')
        s[--n] = '\0';
}

void label_format_number(double v, int digits, char *buf, size_t size)
{
    digits = digits < 1 ? 1 : digits > 17 ? 17 : digits;
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == 0)
        v = 0; /* not "-0" */
    if (v == floor(v) && fabs(v) < 1e6) {
        snprintf(buf, size, "%.0f", v);
        return;
    }
    char mant[48];
    snprintf(mant, sizeof mant, "%.*e", digits - 1, v);
    char *e = strchr(mant, 'e');
    int exp10 = atoi(e + 1);
    *e = '\0';
    if (exp10 >= -3 && exp10 < 4) {
        snprintf(buf, size, "%.*f", exp10 < digits - 1 ? digits - 1 - exp10 : 0, v);
        trim_zeros(buf);
        return;
    }
    trim_zeros(mant);
    snprintf(buf, size, "%se%d", mant, exp10);
}

void label_power10(int k, char *buf, size_t size) { snprintf(buf, size, "10^{%d}", k); }

/* ---- text with scripts ----------------------------------------------------- */

/* Appends the character at *t to p (UTF-8 mu as the font's FONT5X7_MU),
 * moving *t past it; stops quietly when p is full. */
static void take_char(const char **t, char *text, size_t *n, size_t size)
{
    char c = **t;
    if ((unsigned char)c == 0xce && (unsigned char)(*t)[1] == 0xbc) {
        c = FONT5X7_MU;
        ++*t;
    }
    ++*t;
    if (*n + 1 < size)
        text[(*n)++] = c;
}

/* A run of text at one height: plain, raised or lowered. */
typedef struct piece {
    char text[PIECE_MAX];
    int shift; /* pixels down from the line's top: < 0 raised */
    int scale;
} piece;

/* The piece starting at *s, *s moved past it (and its closing brace).
 * False at the end of the text. */
static bool next_piece(const char **s, int scale, piece *p)
{
    const char *t = *s;
    if (!*t)
        return false;
    int small = scale / 2 > 0 ? scale / 2 : 1;
    size_t n = 0;
    if ((t[0] == '^' || t[0] == '_') && t[1] == '{') {
        /* Superscripts stand scale pixels above the capitals' top;
         * subscripts hang with their top four small pixels above the
         * baseline (row 7 of the big font). */
        p->shift = t[0] == '^' ? -scale : 7 * scale - 4 * small;
        p->scale = small;
        t += 2;
        while (*t && *t != '}')
            take_char(&t, p->text, &n, sizeof p->text);
        if (*t == '}')
            t++;
    } else {
        p->shift = 0;
        p->scale = scale;
        do
            take_char(&t, p->text, &n, sizeof p->text);
        while (*t && !((t[0] == '^' || t[0] == '_') && t[1] == '{'));
    }
    p->text[n] = '\0';
    *s = t;
    return true;
}

int label_width(const char *text, int scale)
{
    int w = 0;
    piece p;
    for (const char *s = text; next_piece(&s, scale, &p);)
        /* Each piece is followed by its own blank column, but the last. */
        w += font5x7_text_width(p.text, p.scale) + (*s ? p.scale : 0);
    return w;
}

void label_draw(const canvas *c, int x, int y, const char *text, int scale, bool rotated,
                const unsigned char rgb[3])
{
    int total = rotated ? label_width(text, scale) : 0, along = 0;
    piece p;
    for (const char *s = text; next_piece(&s, scale, &p);) {
        int w = font5x7_text_width(p.text, p.scale);
        if (rotated) /* down the glyph is rightwards; along the text is upwards */
            font5x7_draw(c, x + p.shift, y + total - along - w, p.text, p.scale, true, rgb);
        else
            font5x7_draw(c, x + along, y + p.shift, p.text, p.scale, false, rgb);
        along += w + p.scale;
    }
}
