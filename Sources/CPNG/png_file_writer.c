/*
 * Streaming PNG file writer: 8-bit rows in, a non-interlaced PNG file out, in memory bounded by the width.
 *
 * Why a shim: the tile encoder (png_encoder.c) holds a whole tile; demo and benchmark images are gigapixels,
 * so this writer takes rows a strip at a time and libpng deflates them straight into a stdio stream. Errors
 * longjmp back to the setjmp each entry point sets, as everywhere in this target.
 */
#include "CPNG.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct tiler_png_file_writer {
    png_structp png;
    png_infop info;
    jmp_buf jmp;
    FILE *fp;
    char message[256];
};

static void tiler_png_file_writer_on_error(png_structp png, png_const_charp message) {
    struct tiler_png_file_writer *w = (struct tiler_png_file_writer *)png_get_error_ptr(png);
    snprintf(w->message, sizeof w->message, "%s", message);
    longjmp(w->jmp, 1);
}

static void tiler_png_file_writer_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

tiler_png_file_writer *tiler_png_file_writer_create(const char *path, uint32_t width, uint32_t height, int channels,
                                                    int level, char *message, size_t message_capacity) {
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    if (channels < 1 || channels > 4) {
        snprintf(message, message_capacity, "unsupported channel count %d", channels);
        return NULL;
    }
    tiler_png_file_writer *volatile w = calloc(1, sizeof *w);
    if (w == NULL) {
        snprintf(message, message_capacity, "out of memory");
        return NULL;
    }
    w->fp = fopen(path, "wb");
    if (w->fp == NULL) {
        snprintf(message, message_capacity, "%s", strerror(errno));
        free(w);
        return NULL;
    }
    setvbuf(w->fp, NULL, _IOFBF, 1 << 20);
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, tiler_png_file_writer_on_error,
                                     tiler_png_file_writer_on_warning);
    if (w->png != NULL) w->info = png_create_info_struct(w->png);
    if (w->png == NULL || w->info == NULL) {
        snprintf(message, message_capacity, "out of memory");
        png_destroy_write_struct(w->png ? &w->png : NULL, NULL);
        fclose(w->fp);
        free(w);
        return NULL;
    }
    if (setjmp(w->jmp)) {
        snprintf(message, message_capacity, "%s", w->message);
        png_destroy_write_struct(&w->png, &w->info);
        fclose(w->fp);
        free(w);
        return NULL;
    }
    png_init_io(w->png, w->fp);
    png_set_compression_level(w->png, level);
    png_set_IHDR(w->png, w->info, width, height, 8, types[channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(w->png, w->info);
    return w;
}

int tiler_png_file_writer_write_rows(tiler_png_file_writer *w, const unsigned char *base, size_t stride,
                                     uint32_t count) {
    if (setjmp(w->jmp)) return TILER_PNG_ERR_IO;
    /* libpng takes non-const rows but only reads them. */
    for (uint32_t i = 0; i < count; i++) png_write_row(w->png, (png_bytep)(base + (size_t)i * stride));
    if (ferror(w->fp)) {
        snprintf(w->message, sizeof w->message, "write failed: %s", strerror(errno));
        return TILER_PNG_ERR_IO;
    }
    return TILER_PNG_OK;
}

int tiler_png_file_writer_finish(tiler_png_file_writer *w) {
    if (setjmp(w->jmp)) return TILER_PNG_ERR_IO;
    png_write_end(w->png, NULL);
    if (fflush(w->fp) != 0 || ferror(w->fp)) {
        snprintf(w->message, sizeof w->message, "write failed: %s", strerror(errno));
        return TILER_PNG_ERR_IO;
    }
    return TILER_PNG_OK;
}

const char *tiler_png_file_writer_message(const tiler_png_file_writer *w) { return w->message; }

int tiler_png_file_writer_destroy(tiler_png_file_writer *w) {
    if (w == NULL) return 0;
    png_destroy_write_struct(&w->png, &w->info);
    int closed = fclose(w->fp);
    free(w);
    return closed;
}
