/* Figures read back for the pixel tests (test_heatmap, test_plot): a PNG as
 * 8-bit RGB, its pixels, and the ink in a box. */
#ifndef TMCML_TESTS_PNG_IMAGE_H
#define TMCML_TESTS_PNG_IMAGE_H

#include <stdbool.h>

#include "canvas.h"

typedef struct image {
    int w, h;
    unsigned char *rgb; /* w * h pixels, rows from the top, 3 bytes each */
} image;

/* Reads path; false (saying why on stderr) when it is no readable PNG. */
bool image_read(const char *path, image *img);

/* The pixel at (x, y) from the top-left corner; outside the image, a
 * colour no figure uses. */
const unsigned char *px(const image *img, int x, int y);
bool same(const unsigned char *a, const unsigned char *b);
double luma(const unsigned char *c);

/* Pixels of box b that are not the background colour. */
int ink_in(const image *img, canvas_box b, const unsigned char background[3]);

#endif
