#include "png_image.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool image_read(const char *path, image *img)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    img->rgb = NULL;
    if (!png_image_begin_read_from_file(&pi, path)) {
        fprintf(stderr, "%s: %s\n", path, pi.message);
        return false;
    }
    pi.format = PNG_FORMAT_RGB;
    img->w = (int)pi.width;
    img->h = (int)pi.height;
    img->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (!img->rgb || !png_image_finish_read(&pi, NULL, img->rgb, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", path, pi.message);
        png_image_free(&pi);
        free(img->rgb);
        img->rgb = NULL;
        return false;
    }
    return true;
}

const unsigned char *px(const image *img, int x, int y)
{
    static const unsigned char outside[3] = {1, 2, 3};
    if (x < 0 || y < 0 || x >= img->w || y >= img->h)
        return outside;
    return img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
}

bool same(const unsigned char *a, const unsigned char *b) { return memcmp(a, b, 3) == 0; }

double luma(const unsigned char *c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }

int ink_in(const image *img, canvas_box b, const unsigned char background[3])
{
    int n = 0;
    for (int y = b.y; y < b.y + b.h; y++)
        for (int x = b.x; x < b.x + b.w; x++)
            if (x >= 0 && y >= 0 && x < img->w && y < img->h && !same(px(img, x, y), background))
                n++;
    return n;
}
