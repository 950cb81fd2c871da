#include "canvas.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

bool canvas_init(canvas *c, int width, int height, const unsigned char background[3],
                 const char *path, tm_error *err)
{
    c->rgb = NULL;
    c->width = c->height = 0;
    if (width < 1 || height < 1 || width > CANVAS_SIDE_MAX || height > CANVAS_SIDE_MAX) {
        error_set(err, path, 0, "figure: %d x %d pixels, each side must be 1..%d", width, height,
                  CANVAS_SIDE_MAX);
        return false;
    }
    c->rgb = malloc((size_t)width * (size_t)height * 3);
    if (!c->rgb) {
        error_set(err, path, 0, "figure: out of memory for %d x %d pixels", width, height);
        return false;
    }
    c->width = width;
    c->height = height;
    canvas_fill(c, 0, 0, width, height, background);
    return true;
}

void canvas_free(canvas *c)
{
    free(c->rgb);
    c->rgb = NULL;
    c->width = c->height = 0;
}

void canvas_fill(const canvas *c, int x, int y, int w, int h, const unsigned char rgb[3])
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w > c->width ? c->width : x + w, y1 = y + h > c->height ? c->height : y + h;
    for (int py = y0; py < y1; py++)
        for (int px = x0; px < x1; px++)
            memcpy(c->rgb + 3 * ((size_t)py * (size_t)c->width + (size_t)px), rgb, 3);
}

void canvas_ring(const canvas *c, canvas_box b, int out, const unsigned char rgb[3])
{
    int x = b.x - out, y = b.y - out, w = b.w + 2 * out, h = b.h + 2 * out;
    canvas_fill(c, x, y, w, 1, rgb);
    canvas_fill(c, x, y + h - 1, w, 1, rgb);
    canvas_fill(c, x, y, 1, h, rgb);
    canvas_fill(c, x + w - 1, y, 1, h, rgb);
}

/* Bresenham's walk, every point stamped with the pen. */
void canvas_line(const canvas *c, int x0, int y0, int x1, int y1, int thick,
                 const unsigned char rgb[3])
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int e = dx + dy, half = (thick - 1) / 2;
    for (;;) {
        canvas_fill(c, x0 - half, y0 - half, thick, thick, rgb);
        if (x0 == x1 && y0 == y1)
            return;
        int e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

void canvas_dashed_hline(const canvas *c, int x0, int x1, int y, int on, int off,
                         const unsigned char rgb[3])
{
    for (int x = x0; x <= x1; x += on + off)
        canvas_fill(c, x, y, x + on - 1 > x1 ? x1 - x + 1 : on, 1, rgb);
}

void canvas_dashed_vline(const canvas *c, int x, int y0, int y1, int on, int off,
                         const unsigned char rgb[3])
{
    for (int y = y0; y <= y1; y += on + off)
        canvas_fill(c, x, y, 1, y + on - 1 > y1 ? y1 - y + 1 : on, rgb);
}

/* libpng's simplified API catches libpng's own errors (its setjmp is inside)
 * and leaves the text in image.message. */
static bool write_png(FILE *stream, void *ctx, tm_error *err)
{
    const canvas *c = ctx;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)c->width;
    image.height = (png_uint_32)c->height;
    image.format = PNG_FORMAT_RGB;
    if (png_image_write_to_stdio(&image, stream, 0, c->rgb, 0, NULL))
        return true;
    error_set(err, NULL, 0, "libpng: %s", image.message);
    png_image_free(&image);
    return false;
}

bool canvas_write_png(const canvas *c, const char *path, tm_error *err)
{
    return fs_write_atomic(path, write_png, (void *)c, err);
}
