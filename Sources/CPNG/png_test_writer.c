/*
 * Writes raw PNG fixtures for the tests: any colour type, bit depth, palette, tRNS, Adam7 and eXIf,
 * with the samples exactly as given. It lives here because only this target may include png.h; the
 * tests compute the expected 8-bit pixels themselves from the PNG specification.
 */
#include "CPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct tiler_png_test_context {
    jmp_buf jmp;
    char *message;
    size_t message_capacity;
} tiler_png_test_context;

static void tiler_png_test_on_error(png_structp png, png_const_charp message) {
    tiler_png_test_context *c = (tiler_png_test_context *)png_get_error_ptr(png);
    snprintf(c->message, c->message_capacity, "%s", message);
    longjmp(c->jmp, 1);
}

static void tiler_png_test_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void tiler_png_test_set_chunks(png_structp png, png_infop info, const tiler_png_test_image *image) {
    if (image->palette_entries > 0) {
        png_color palette[256];
        for (int i = 0; i < image->palette_entries && i < 256; i++) {
            palette[i].red = image->palette[3 * i];
            palette[i].green = image->palette[3 * i + 1];
            palette[i].blue = image->palette[3 * i + 2];
        }
        png_set_PLTE(png, info, palette, image->palette_entries);
    }
    if (image->palette_alpha_count > 0) {
        png_set_tRNS(png, info, image->palette_alpha, image->palette_alpha_count, NULL);
    } else if (image->has_trns_color) {
        png_color_16 color = {0, image->trns_red, image->trns_green, image->trns_blue, image->trns_gray};
        png_set_tRNS(png, info, NULL, 0, &color);
    }
    if (image->exif != NULL) png_set_eXIf_1(png, info, image->exif_length, (png_bytep)image->exif);
}

int tiler_png_write_test(const char *path, const tiler_png_test_image *image, char *message, size_t message_capacity) {
    tiler_png_test_context context = {.message = message, .message_capacity = message_capacity};
    FILE *volatile fp = NULL;
    png_structp volatile png = NULL;
    png_infop volatile info = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(context.jmp)) {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
        free(rows);
        if (fp != NULL) fclose(fp);
        return TILER_PNG_ERR_CORRUPT;
    }
    fp = fopen(path, "wb");
    if (fp == NULL) {
        snprintf(message, message_capacity, "cannot create %s", path);
        return TILER_PNG_ERR_IO;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, tiler_png_test_on_error, tiler_png_test_on_warning);
    if (png == NULL) longjmp(context.jmp, 1);
    info = png_create_info_struct(png);
    rows = malloc(sizeof(png_bytep) * (image->height + 1));
    if (info == NULL || rows == NULL) png_error(png, "out of memory");
    for (uint32_t y = 0; y < image->height; y++) rows[y] = (png_bytep)image->rows + (size_t)y * image->row_bytes;
    png_init_io(png, fp);
    png_set_IHDR(png, info, image->width, image->height, image->bit_depth, image->color_type,
                 image->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
                 PNG_FILTER_TYPE_BASE);
    tiler_png_test_set_chunks(png, info, image);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
    }
    free(rows);
    int failed = fclose(fp) != 0;
    if (failed) snprintf(message, message_capacity, "cannot write %s", path);
    return failed ? TILER_PNG_ERR_IO : TILER_PNG_OK;
}
