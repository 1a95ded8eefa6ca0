#include "COpenSlide.h"

#include <openslide/openslide.h>

const char *tiler_slide_detect_vendor(const char *path) { return openslide_detect_vendor(path); }

tiler_slide *tiler_slide_open(const char *path) { return openslide_open(path); }

void tiler_slide_close(tiler_slide *slide) {
    if (slide) openslide_close(slide);
}

const char *tiler_slide_error(tiler_slide *slide) { return openslide_get_error(slide); }

int32_t tiler_slide_level_count(tiler_slide *slide) { return openslide_get_level_count(slide); }

void tiler_slide_level_size(tiler_slide *slide, int32_t level, int64_t *width, int64_t *height) {
    openslide_get_level_dimensions(slide, level, width, height);
}

double tiler_slide_level_downsample(tiler_slide *slide, int32_t level) { return openslide_get_level_downsample(slide, level); }

const char *const *tiler_slide_property_names(tiler_slide *slide) { return openslide_get_property_names(slide); }

const char *tiler_slide_property_value(tiler_slide *slide, const char *name) { return openslide_get_property_value(slide, name); }

const char *const *tiler_slide_associated_names(tiler_slide *slide) { return openslide_get_associated_image_names(slide); }

void tiler_slide_associated_size(tiler_slide *slide, const char *name, int64_t *width, int64_t *height) {
    openslide_get_associated_image_dimensions(slide, name, width, height);
}

/* Premultiplied ARGB words to straight RGB over the background: with c the premultiplied channel and a the alpha,
 * compositing the unpremultiplied colour c·255/a over bg gives c + bg·(255 − a)/255, no division by a. */
static void argb_to_rgb(const uint32_t *argb, size_t count, uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint8_t *rgb) {
    for (size_t i = 0; i < count; i++) {
        uint32_t p = argb[i];
        uint32_t a = p >> 24;
        uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
        if (a != 255) {
            uint32_t t = 255 - a;
            r += (bg_r * t + 127) / 255;
            g += (bg_g * t + 127) / 255;
            b += (bg_b * t + 127) / 255;
            if (r > 255) r = 255;
            if (g > 255) g = 255;
            if (b > 255) b = 255;
        }
        rgb[3 * i] = (uint8_t)r;
        rgb[3 * i + 1] = (uint8_t)g;
        rgb[3 * i + 2] = (uint8_t)b;
    }
}

int tiler_slide_read_rgb(tiler_slide *slide, int32_t level, int64_t x, int64_t y, int32_t width, int32_t height,
                         uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint32_t *scratch, uint8_t *rgb) {
    openslide_read_region(slide, scratch, x, y, level, width, height);
    if (openslide_get_error(slide)) return -1;
    argb_to_rgb(scratch, (size_t)width * (size_t)height, bg_r, bg_g, bg_b, rgb);
    return 0;
}

int tiler_slide_read_associated_rgb(tiler_slide *slide, const char *name, int64_t width, int64_t height,
                                    uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint32_t *scratch, uint8_t *rgb) {
    openslide_read_associated_image(slide, name, scratch);
    if (openslide_get_error(slide)) return -1;
    argb_to_rgb(scratch, (size_t)width * (size_t)height, bg_r, bg_g, bg_b, rgb);
    return 0;
}

const char *tiler_slide_version(void) { return openslide_get_version(); }
