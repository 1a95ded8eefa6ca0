/*
 * PNG tile encoder into a reusable memory buffer.
 *
 * Why a shim: libpng reports errors by longjmp (see png_reader.c). A libpng write struct cannot be
 * reused after png_write_end, so each tile gets a fresh one (a few small allocations plus zlib's
 * deflateInit, small next to compressing a tile); what is reused across tiles is the output buffer,
 * so a steady stream of tiles settles into no buffer reallocation at all.
 */
#include "CPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct tiler_png_encoder {
    int level;
    int filter;
    jmp_buf jmp;
    int code;
    char message[256];
    unsigned char *buffer;
    size_t size;
    size_t capacity;
};

static void tiler_png_encoder_on_error(png_structp png, png_const_charp message) {
    tiler_png_encoder *e = (tiler_png_encoder *)png_get_error_ptr(png);
    if (e->code == TILER_PNG_OK) e->code = TILER_PNG_ERR_CORRUPT;
    snprintf(e->message, sizeof e->message, "%s", message);
    longjmp(e->jmp, 1);
}

/* An encoder given valid rows has nothing to warn about; stay silent rather than print. */
static void tiler_png_encoder_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void tiler_png_encoder_write(png_structp png, png_bytep data, size_t length) {
    tiler_png_encoder *e = (tiler_png_encoder *)png_get_io_ptr(png);
    if (length > e->capacity - e->size) {
        size_t capacity = e->capacity;
        while (length > capacity - e->size) {
            if (capacity > SIZE_MAX / 2) capacity = SIZE_MAX;
            else capacity *= 2;
        }
        unsigned char *grown = realloc(e->buffer, capacity);
        if (grown == NULL) {
            e->code = TILER_PNG_ERR_NOMEM;
            png_error(png, "out of memory for the encoded PNG");
        }
        e->buffer = grown;
        e->capacity = capacity;
    }
    memcpy(e->buffer + e->size, data, length);
    e->size += length;
}

static void tiler_png_encoder_flush(png_structp png) { (void)png; }

tiler_png_encoder *tiler_png_encoder_create(int level, int filter) {
    tiler_png_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->level = level;
    e->filter = filter;
    e->capacity = 64 * 1024;
    e->buffer = malloc(e->capacity);
    if (e->buffer == NULL) {
        free(e);
        return NULL;
    }
    return e;
}

static int tiler_png_filter_flags(int filter) {
    switch (filter) {
    case TILER_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case TILER_PNG_FILTER_SUB: return PNG_FILTER_SUB;
    case TILER_PNG_FILTER_UP: return PNG_FILTER_UP;
    case TILER_PNG_FILTER_AVG: return PNG_FILTER_AVG;
    case TILER_PNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    default: return PNG_ALL_FILTERS;
    }
}

static const int tiler_png_color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                             PNG_COLOR_TYPE_RGB_ALPHA};

int tiler_png_encode(tiler_png_encoder *e, const unsigned char *base, uint32_t width, uint32_t height, size_t stride,
                     int channels, const unsigned char **out, size_t *out_length) {
    png_structp volatile png = NULL;
    png_infop volatile info = NULL;
    e->code = TILER_PNG_OK;
    e->message[0] = 0;
    e->size = 0;
    if (channels < 1 || channels > 4) {
        snprintf(e->message, sizeof e->message, "unsupported channel count %d", channels);
        return e->code = TILER_PNG_ERR_ARGUMENT;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, tiler_png_encoder_on_error, tiler_png_encoder_on_warning);
    if (png != NULL) info = png_create_info_struct(png);
    if (info == NULL) {
        png_structp p = png;
        png_destroy_write_struct(&p, NULL);
        snprintf(e->message, sizeof e->message, "out of memory creating the PNG encoder");
        return e->code = TILER_PNG_ERR_NOMEM;
    }
    if (setjmp(e->jmp)) {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
        return e->code;
    }
    png_set_write_fn(png, e, tiler_png_encoder_write, tiler_png_encoder_flush);
    png_set_compression_level(png, e->level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, tiler_png_filter_flags(e->filter));
    png_set_IHDR(png, info, width, height, 8, tiler_png_color_types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, base + (size_t)y * stride);
    png_write_end(png, NULL);
    {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
    }
    *out = e->buffer;
    *out_length = e->size;
    return TILER_PNG_OK;
}

const char *tiler_png_encoder_message(const tiler_png_encoder *e) { return e->message; }

void tiler_png_encoder_destroy(tiler_png_encoder *e) {
    if (e == NULL) return;
    free(e->buffer);
    free(e);
}
