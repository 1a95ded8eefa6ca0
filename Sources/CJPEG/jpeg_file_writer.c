/*
 * Streaming JPEG file writer: rows in, a JPEG file out, in memory bounded by the width.
 *
 * Why a shim: the tile encoder (jpeg_encoder.c) holds a whole tile in memory; demo and benchmark images
 * are gigapixels, so this writer takes rows a strip at a time and libjpeg writes them to a stdio stream.
 * Errors longjmp back to the setjmp each entry point sets, as everywhere in this target.
 */
#include "CJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

struct tiler_jpeg_file_writer {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    FILE *fp;
    int started;
    char message[JMSG_LENGTH_MAX + 64];
};

static void tiler_jpeg_file_writer_on_error_exit(j_common_ptr cinfo) {
    struct tiler_jpeg_file_writer *w = (struct tiler_jpeg_file_writer *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, w->message);
    longjmp(w->jmp, 1);
}

static void tiler_jpeg_file_writer_on_output_message(j_common_ptr cinfo) { (void)cinfo; }

tiler_jpeg_file_writer *tiler_jpeg_file_writer_create(const char *path, uint32_t width, uint32_t height, int channels,
                                                      int quality, int subsampling, int progressive, char *message,
                                                      size_t message_capacity) {
    if (channels != 1 && channels != 3) {
        snprintf(message, message_capacity, "JPEG files hold gray or RGB, not %d channels", channels);
        return NULL;
    }
    tiler_jpeg_file_writer *volatile w = calloc(1, sizeof *w);
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
    w->cinfo.err = jpeg_std_error(&w->err);
    w->err.error_exit = tiler_jpeg_file_writer_on_error_exit;
    w->err.output_message = tiler_jpeg_file_writer_on_output_message;
    w->cinfo.client_data = w;
    if (setjmp(w->jmp)) {
        snprintf(message, message_capacity, "%s", w->message);
        jpeg_destroy_compress(&w->cinfo);
        fclose(w->fp);
        free(w);
        return NULL;
    }
    jpeg_create_compress(&w->cinfo);
    jpeg_stdio_dest(&w->cinfo, w->fp);
    w->cinfo.image_width = width;
    w->cinfo.image_height = height;
    w->cinfo.input_components = channels;
    w->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&w->cinfo);
    jpeg_set_quality(&w->cinfo, quality, TRUE);
    if (channels == 3) {
        w->cinfo.comp_info[0].h_samp_factor = subsampling == TILER_JPEG_SUBSAMPLING_444 ? 1 : 2;
        w->cinfo.comp_info[0].v_samp_factor = subsampling == TILER_JPEG_SUBSAMPLING_420 ? 2 : 1;
    }
    if (progressive) jpeg_simple_progression(&w->cinfo);
    jpeg_start_compress(&w->cinfo, TRUE);
    w->started = 1;
    return w;
}

int tiler_jpeg_file_writer_write_rows(tiler_jpeg_file_writer *w, const unsigned char *base, size_t stride,
                                      uint32_t count) {
    if (setjmp(w->jmp)) return TILER_JPEG_ERR_IO;
    for (uint32_t i = 0; i < count;) {
        JSAMPROW rows[16];
        uint32_t n = count - i < 16 ? count - i : 16;
        for (uint32_t k = 0; k < n; k++) rows[k] = (JSAMPROW)(base + (size_t)(i + k) * stride);
        JDIMENSION done = jpeg_write_scanlines(&w->cinfo, rows, n);
        if (done == 0) {
            snprintf(w->message, sizeof w->message, "more rows than the image height");
            return TILER_JPEG_ERR_ARGUMENT;
        }
        i += done;
    }
    if (ferror(w->fp)) {
        snprintf(w->message, sizeof w->message, "write failed: %s", strerror(errno));
        return TILER_JPEG_ERR_IO;
    }
    return TILER_JPEG_OK;
}

int tiler_jpeg_file_writer_finish(tiler_jpeg_file_writer *w) {
    if (setjmp(w->jmp)) return TILER_JPEG_ERR_IO;
    jpeg_finish_compress(&w->cinfo);
    w->started = 0;
    if (fflush(w->fp) != 0 || ferror(w->fp)) {
        snprintf(w->message, sizeof w->message, "write failed: %s", strerror(errno));
        return TILER_JPEG_ERR_IO;
    }
    return TILER_JPEG_OK;
}

const char *tiler_jpeg_file_writer_message(const tiler_jpeg_file_writer *w) { return w->message; }

int tiler_jpeg_file_writer_destroy(tiler_jpeg_file_writer *w) {
    if (w == NULL) return 0;
    if (setjmp(w->jmp) == 0) {
        if (w->started) jpeg_abort_compress(&w->cinfo);
    }
    jpeg_destroy_compress(&w->cinfo);
    int closed = fclose(w->fp);
    free(w);
    return closed;
}
