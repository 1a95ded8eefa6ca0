/*
 * JPEG tile encoder: one jpeg_compress_struct per encoder, reused for every tile.
 *
 * Why a shim: libjpeg's errors unwind by longjmp (see jpeg_reader.c), and per-tile overhead matters
 * (a 256×256 tile takes about a quarter of a millisecond to encode). So the compressor is created once,
 * jpeg_set_defaults runs only when the pixel layout changes, the output goes to a buffer that grows
 * and is kept across tiles, and rows are handed to libjpeg straight from the caller's strided memory
 * (RGBA as libjpeg-turbo's JCS_EXT_RGBX, so alpha is skipped without a copy). Only gray+alpha needs a
 * scratch row, since libjpeg has no layout that skips every second byte.
 */
#include "CJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#define TILER_JPEG_SCRATCH_ROWS 16

struct tiler_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_destination_mgr dest;
    jmp_buf jmp;
    int quality;
    int optimize;
    int subsampling;
    int configured_channels; /* the layout jpeg_set_defaults last ran for; 0 = none */
    int code;
    char message[JMSG_LENGTH_MAX + 64];
    unsigned char *buffer;
    size_t capacity;
    size_t size;
    JSAMPROW *rows;
    size_t rows_capacity;
    unsigned char *scratch; /* gray+alpha: gray samples of TILER_JPEG_SCRATCH_ROWS rows */
    size_t scratch_capacity;
};

static tiler_jpeg_encoder *tiler_jpeg_encoder_owner(j_common_ptr cinfo) {
    return (tiler_jpeg_encoder *)cinfo->client_data;
}

static void tiler_jpeg_encoder_on_error_exit(j_common_ptr cinfo) {
    tiler_jpeg_encoder *e = tiler_jpeg_encoder_owner(cinfo);
    if (e->code == TILER_JPEG_OK) {
        e->code = cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? TILER_JPEG_ERR_NOMEM : TILER_JPEG_ERR_ARGUMENT;
    }
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jmp, 1);
}

static void tiler_jpeg_encoder_on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void tiler_jpeg_dest_init(j_compress_ptr cinfo) {
    tiler_jpeg_encoder *e = tiler_jpeg_encoder_owner((j_common_ptr)cinfo);
    e->dest.next_output_byte = e->buffer;
    e->dest.free_in_buffer = e->capacity;
}

/* The buffer is full: double it and carry on. */
static boolean tiler_jpeg_dest_empty(j_compress_ptr cinfo) {
    tiler_jpeg_encoder *e = tiler_jpeg_encoder_owner((j_common_ptr)cinfo);
    size_t used = e->capacity;
    unsigned char *grown = e->capacity <= SIZE_MAX / 2 ? realloc(e->buffer, e->capacity * 2) : NULL;
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    e->buffer = grown;
    e->capacity *= 2;
    e->dest.next_output_byte = e->buffer + used;
    e->dest.free_in_buffer = e->capacity - used;
    return TRUE;
}

static void tiler_jpeg_dest_term(j_compress_ptr cinfo) {
    tiler_jpeg_encoder *e = tiler_jpeg_encoder_owner((j_common_ptr)cinfo);
    e->size = e->capacity - e->dest.free_in_buffer;
}

tiler_jpeg_encoder *tiler_jpeg_encoder_create(int quality, int optimize, int subsampling) {
    tiler_jpeg_encoder *volatile e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->quality = quality;
    e->optimize = optimize;
    e->subsampling = subsampling;
    e->capacity = 64 * 1024;
    e->buffer = malloc(e->capacity);
    if (e->buffer == NULL) {
        free(e);
        return NULL;
    }
    e->cinfo.err = jpeg_std_error(&e->err);
    e->err.error_exit = tiler_jpeg_encoder_on_error_exit;
    e->err.output_message = tiler_jpeg_encoder_on_output_message;
    e->cinfo.client_data = e;
    if (setjmp(e->jmp)) { /* jpeg_create_compress fails only when memory runs out */
        jpeg_destroy_compress(&e->cinfo);
        free(e->buffer);
        free(e);
        return NULL;
    }
    jpeg_create_compress(&e->cinfo);
    e->dest.init_destination = tiler_jpeg_dest_init;
    e->dest.empty_output_buffer = tiler_jpeg_dest_empty;
    e->dest.term_destination = tiler_jpeg_dest_term;
    e->cinfo.dest = &e->dest;
    return e;
}

/* Runs jpeg_set_defaults for a new input layout. Under the caller's setjmp. */
static void tiler_jpeg_configure(tiler_jpeg_encoder *e, int channels) {
    static const J_COLOR_SPACE spaces[5] = {JCS_UNKNOWN, JCS_GRAYSCALE, JCS_GRAYSCALE, JCS_RGB, JCS_EXT_RGBX};
    e->cinfo.in_color_space = spaces[channels];
    e->cinfo.input_components = channels == 2 ? 1 : channels;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, e->quality, TRUE);
    e->cinfo.optimize_coding = e->optimize ? TRUE : FALSE;
    if (channels >= 3) {
        e->cinfo.comp_info[0].h_samp_factor = e->subsampling == TILER_JPEG_SUBSAMPLING_444 ? 1 : 2;
        e->cinfo.comp_info[0].v_samp_factor = e->subsampling == TILER_JPEG_SUBSAMPLING_420 ? 2 : 1;
        for (int i = 1; i < 3; i++) {
            e->cinfo.comp_info[i].h_samp_factor = 1;
            e->cinfo.comp_info[i].v_samp_factor = 1;
        }
    }
    e->configured_channels = channels;
}

static void tiler_jpeg_grow_rows(tiler_jpeg_encoder *e, size_t count) {
    if (count <= e->rows_capacity) return;
    JSAMPROW *grown = realloc(e->rows, count * sizeof(JSAMPROW));
    if (grown == NULL) ERREXIT1(&e->cinfo, JERR_OUT_OF_MEMORY, 2);
    e->rows = grown;
    e->rows_capacity = count;
}

/* Gray+alpha: copy the gray samples out, a few rows at a time. Under the caller's setjmp. */
static void tiler_jpeg_write_gray_alpha(tiler_jpeg_encoder *e, const unsigned char *base, size_t stride) {
    uint32_t width = e->cinfo.image_width;
    size_t need = (size_t)width * TILER_JPEG_SCRATCH_ROWS;
    if (need > e->scratch_capacity) {
        unsigned char *grown = realloc(e->scratch, need);
        if (grown == NULL) ERREXIT1(&e->cinfo, JERR_OUT_OF_MEMORY, 3);
        e->scratch = grown;
        e->scratch_capacity = need;
    }
    tiler_jpeg_grow_rows(e, TILER_JPEG_SCRATCH_ROWS);
    while (e->cinfo.next_scanline < e->cinfo.image_height) {
        uint32_t first = e->cinfo.next_scanline;
        uint32_t count = e->cinfo.image_height - first;
        if (count > TILER_JPEG_SCRATCH_ROWS) count = TILER_JPEG_SCRATCH_ROWS;
        for (uint32_t i = 0; i < count; i++) {
            const unsigned char *src = base + (size_t)(first + i) * stride;
            unsigned char *dst = e->scratch + (size_t)i * width;
            for (uint32_t x = 0; x < width; x++) dst[x] = src[2 * x];
            e->rows[i] = dst;
        }
        (void)jpeg_write_scanlines(&e->cinfo, e->rows, count);
    }
}

int tiler_jpeg_encode(tiler_jpeg_encoder *e, const unsigned char *base, uint32_t width, uint32_t height,
                      size_t stride, int channels, const unsigned char **out, size_t *out_length) {
    e->code = TILER_JPEG_OK;
    e->message[0] = 0;
    if (channels < 1 || channels > 4) {
        snprintf(e->message, sizeof e->message, "unsupported channel count %d", channels);
        return e->code = TILER_JPEG_ERR_ARGUMENT;
    }
    if (setjmp(e->jmp)) {
        jpeg_abort_compress(&e->cinfo); /* back to idle, so the encoder stays usable */
        e->configured_channels = 0;
        return e->code;
    }
    if (channels != e->configured_channels) tiler_jpeg_configure(e, channels);
    e->cinfo.image_width = width;
    e->cinfo.image_height = height;
    jpeg_start_compress(&e->cinfo, TRUE);
    if (channels == 2) {
        tiler_jpeg_write_gray_alpha(e, base, stride);
    } else {
        tiler_jpeg_grow_rows(e, height);
        /* libjpeg takes non-const rows but only reads them. */
        for (uint32_t y = 0; y < height; y++) e->rows[y] = (JSAMPROW)(base + (size_t)y * stride);
        while (e->cinfo.next_scanline < height) {
            (void)jpeg_write_scanlines(&e->cinfo, e->rows + e->cinfo.next_scanline, height - e->cinfo.next_scanline);
        }
    }
    jpeg_finish_compress(&e->cinfo);
    *out = e->buffer;
    *out_length = e->size;
    return TILER_JPEG_OK;
}

const char *tiler_jpeg_encoder_message(const tiler_jpeg_encoder *e) { return e->message; }

void tiler_jpeg_encoder_destroy(tiler_jpeg_encoder *e) {
    if (e == NULL) return;
    jpeg_destroy_compress(&e->cinfo);
    free(e->buffer);
    free(e->rows);
    free(e->scratch);
    free(e);
}
