/*
 * Streaming PNG reader over libpng's progressive-row API (png_read_row).
 *
 * Why a shim: libpng reports errors by longjmp. Swift cannot call setjmp, so each entry point below
 * sets its own and converts a libpng error into a status code and a message. Locals written between
 * setjmp and a possible longjmp are volatile. Rows come out as 8-bit gray, gray+alpha, RGB or RGBA
 * whatever the source colour type and bit depth; a non-interlaced image streams with memory
 * O(width), an Adam7 image is decoded whole on the first read (it cannot be streamed).
 */
#include "CPNG.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define TILER_PNG_MAX_WARNINGS 100

struct tiler_png_reader {
    png_structp png;
    png_infop info;
    FILE *fp;
    jmp_buf jmp;
    int lenient;
    tiler_png_warning_fn warn;
    void *warn_context;
    int warnings;

    int header_done;
    int started;       /* transforms set up */
    int finished;      /* png_read_end done */
    int soft_failed;   /* lenient mode: a row failed, later rows are zeros */
    int in_interlaced; /* decoding the whole Adam7 image right now */
    int code;          /* TILER_PNG_* of the last error, sticky */
    int64_t error_row;
    char message[512];
    char last_warning[256]; /* png_check_IHDR warns the reason, then errors "Invalid IHDR data" */

    uint32_t width;
    uint32_t height;
    int interlaced;
    int out_channels;
    int keep_16;           /* deliver 16-bit samples (big-endian) instead of scaling them to 8 */
    size_t row_bytes;
    uint32_t next_row;     /* rows handed to the caller */
    unsigned char *image;  /* Adam7 only: the whole decoded image */
    png_bytep *row_pointers; /* Adam7 only, freed after decoding */
};

static void tiler_png_deliver_warning(tiler_png_reader *r, const char *message) {
    snprintf(r->last_warning, sizeof r->last_warning, "%s", message);
    /* png_check_IHDR warns the reason, then always errors "Invalid IHDR data": the error carries it. */
    if (strstr(message, "IHDR") != NULL) return;
    if (r->warn == NULL) return;
    r->warnings += 1;
    if (r->warnings < TILER_PNG_MAX_WARNINGS) {
        r->warn(r->warn_context, message);
    } else if (r->warnings == TILER_PNG_MAX_WARNINGS) {
        r->warn(r->warn_context, "too many warnings; further warnings suppressed");
    }
}

static void tiler_png_on_error(png_structp png, png_const_charp message) {
    tiler_png_reader *r = (tiler_png_reader *)png_get_error_ptr(png);
    if (r->code == TILER_PNG_OK) {
        r->code = strstr(message, "memory") != NULL ? TILER_PNG_ERR_NOMEM : TILER_PNG_ERR_CORRUPT;
    }
    if (strstr(message, "IHDR") != NULL && r->last_warning[0] != 0) {
        snprintf(r->message, sizeof r->message, "%s (%s)", message, r->last_warning);
    } else if (r->in_interlaced) {
        snprintf(r->message, sizeof r->message, "%s (in Adam7 pass %d)", message,
                 (int)png_get_current_pass_number(png) + 1);
    } else {
        snprintf(r->message, sizeof r->message, "%s", message);
    }
    longjmp(r->jmp, 1);
}

static void tiler_png_on_warning(png_structp png, png_const_charp message) {
    tiler_png_deliver_warning((tiler_png_reader *)png_get_error_ptr(png), message);
}

static void tiler_png_read_data(png_structp png, png_bytep data, size_t length) {
    tiler_png_reader *r = (tiler_png_reader *)png_get_io_ptr(png);
    size_t got = fread(data, 1, length, r->fp);
    if (got == length) return;
    if (ferror(r->fp)) {
        char buffer[200];
        r->code = TILER_PNG_ERR_IO;
        snprintf(buffer, sizeof buffer, "read error: %s", strerror(errno));
        png_error(png, buffer);
    }
    r->code = TILER_PNG_ERR_TRUNCATED;
    png_error(png, "unexpected end of file");
}

tiler_png_reader *tiler_png_reader_create(FILE *fp, int lenient, tiler_png_warning_fn warn, void *warn_context) {
    tiler_png_reader *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->fp = fp;
    r->lenient = lenient;
    r->warn = warn;
    r->warn_context = warn_context;
    r->error_row = -1;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, tiler_png_on_error, tiler_png_on_warning);
    if (r->png != NULL) r->info = png_create_info_struct(r->png);
    if (r->info == NULL) {
        tiler_png_reader_destroy(r);
        return NULL;
    }
    return r;
}

/* Ancillary chunks Tiler never uses: skipped unparsed (still CRC-checked), so their quirks cannot fail a read. */
static const png_byte tiler_png_ignored_chunks[] = "bKGD\0hIST\0iTXt\0oFFs\0pCAL\0pHYs\0"
                                                   "sBIT\0sCAL\0sPLT\0tEXt\0tIME\0zTXt";
/* Colour chunks are kept raw and parsed by the Swift side: libpng's own checks would make a bad profile fatal,
 * where Tiler warns and treats the image as sRGB. */
static const png_byte tiler_png_colour_chunks[] = "cHRM\0gAMA\0iCCP\0sRGB";

static void tiler_png_configure(tiler_png_reader *r) {
    png_set_read_fn(r->png, r, tiler_png_read_data);
    /* Tiler enforces its own pixel limit; libpng's default is 1,000,000 × 1,000,000. */
    png_set_user_limits(r->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, tiler_png_ignored_chunks,
                                (int)(sizeof tiler_png_ignored_chunks / 5));
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_ALWAYS, tiler_png_colour_chunks,
                                (int)(sizeof tiler_png_colour_chunks / 5));
    if (r->lenient) {
        png_set_crc_action(r->png, PNG_CRC_WARN_USE, PNG_CRC_WARN_USE);
        png_set_benign_errors(r->png, 1);
    } else {
        png_set_crc_action(r->png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
        png_set_benign_errors(r->png, 0);
    }
}

static int tiler_png_out_channels(int color_type, int has_trns) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return has_trns ? 2 : 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB:
    case PNG_COLOR_TYPE_PALETTE: return has_trns ? 4 : 3;
    default: return 4;
    }
}

int tiler_png_reader_read_header(tiler_png_reader *r, tiler_png_header *header) {
    if (r->header_done || r->code != TILER_PNG_OK) {
        if (r->code == TILER_PNG_OK) {
            r->code = TILER_PNG_ERR_ARGUMENT;
            snprintf(r->message, sizeof r->message, "header already read");
        }
        return r->code;
    }
    if (setjmp(r->jmp)) return r->code;
    tiler_png_configure(r);
    png_read_info(r->png, r->info);

    memset(header, 0, sizeof *header);
    header->width = png_get_image_width(r->png, r->info);
    header->height = png_get_image_height(r->png, r->info);
    header->bit_depth = png_get_bit_depth(r->png, r->info);
    header->color_type = png_get_color_type(r->png, r->info);
    header->interlaced = png_get_interlace_type(r->png, r->info) != PNG_INTERLACE_NONE;
    header->has_trns = png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0;
    header->out_channels = tiler_png_out_channels(header->color_type, header->has_trns);
    png_bytep exif = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(r->png, r->info, &exif_length, &exif) != 0 && exif != NULL) {
        header->exif = exif;
        header->exif_length = exif_length;
    }
    r->width = header->width;
    r->height = header->height;
    r->interlaced = header->interlaced;
    r->out_channels = header->out_channels;
    r->header_done = 1;
    return TILER_PNG_OK;
}

/* Sets up the transforms to 8-bit gray/GA/RGB/RGBA. Runs under the caller's setjmp. */
static void tiler_png_start(tiler_png_reader *r) {
    int color_type = png_get_color_type(r->png, r->info);
    int bit_depth = png_get_bit_depth(r->png, r->info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
    if (png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0) png_set_tRNS_to_alpha(r->png);
    if (bit_depth == 16 && !r->keep_16) png_set_scale_16(r->png);
    if (r->interlaced) (void)png_set_interlace_handling(r->png);
    png_read_update_info(r->png, r->info);
    r->row_bytes = png_get_rowbytes(r->png, r->info);
    int bytes = (bit_depth == 16 && r->keep_16) ? 2 : 1;
    if (png_get_channels(r->png, r->info) != r->out_channels || png_get_bit_depth(r->png, r->info) != 8 * bytes ||
        r->row_bytes != (size_t)r->width * (size_t)r->out_channels * (size_t)bytes) {
        png_error(r->png, "unexpected pixel layout after transforms");
    }
    r->started = 1;
}

/* Adam7: decode everything into r->image. Runs under the caller's setjmp. */
static void tiler_png_decode_whole(tiler_png_reader *r) {
    if (r->height != 0 && r->row_bytes > SIZE_MAX / r->height) png_error(r->png, "image too large for memory");
    r->image = calloc(r->height, r->row_bytes);
    r->row_pointers = malloc(sizeof(png_bytep) * (size_t)r->height);
    if (r->image == NULL || r->row_pointers == NULL) png_error(r->png, "out of memory for an interlaced image");
    for (uint32_t y = 0; y < r->height; y++) r->row_pointers[y] = r->image + (size_t)y * r->row_bytes;
    r->in_interlaced = 1;
    png_read_image(r->png, r->row_pointers);
    r->in_interlaced = 0;
    free(r->row_pointers);
    r->row_pointers = NULL;
}

/* Rows that need no more libpng calls: from the Adam7 buffer, or zeros after a lenient failure. */
static uint32_t tiler_png_copy_out(tiler_png_reader *r, unsigned char *dst, size_t stride, uint32_t count) {
    uint32_t n = 0;
    for (; n < count && r->next_row < r->height; n++, r->next_row++) {
        if (r->image != NULL) {
            memcpy(dst + (size_t)n * stride, r->image + (size_t)r->next_row * r->row_bytes, r->row_bytes);
        } else {
            memset(dst + (size_t)n * stride, 0, r->row_bytes);
        }
    }
    return n;
}

/* Lenient mode: report the failure as a warning and go on with what is left. */
static void tiler_png_soften(tiler_png_reader *r) {
    char warning[600];
    if (r->error_row >= 0) {
        snprintf(warning, sizeof warning, "%s (at row %lld of %u); the rest of the image is left black", r->message,
                 (long long)r->error_row, r->height);
    } else {
        snprintf(warning, sizeof warning, "%s; the undecoded part of the image is left black", r->message);
    }
    tiler_png_deliver_warning(r, warning);
    r->soft_failed = 1;
}

int tiler_png_reader_read_rows(tiler_png_reader *r, unsigned char *dst, size_t stride, uint32_t count,
                               uint32_t *rows_done) {
    volatile uint32_t n = 0;
    *rows_done = 0;
    if (!r->header_done && r->code == TILER_PNG_OK) {
        r->code = TILER_PNG_ERR_ARGUMENT;
        snprintf(r->message, sizeof r->message, "rows requested before the header was read");
    }
    if (r->code != TILER_PNG_OK && !r->soft_failed) return r->code;
    if (setjmp(r->jmp)) {
        r->error_row = (r->interlaced || !r->started) ? -1 : (int64_t)r->next_row;
        if (!r->lenient || !r->started) {
            *rows_done = n;
            return r->code;
        }
        tiler_png_soften(r);
        *rows_done = n + tiler_png_copy_out(r, dst + (size_t)n * stride, stride, count - n);
        return TILER_PNG_OK;
    }
    if (!r->soft_failed) {
        if (!r->started) tiler_png_start(r);
        if (r->interlaced && r->image == NULL) tiler_png_decode_whole(r);
        if (!r->interlaced) {
            while (n < count && r->next_row < r->height) {
                png_read_row(r->png, dst + (size_t)n * stride, NULL);
                r->next_row += 1;
                n += 1;
            }
        }
    }
    n += tiler_png_copy_out(r, dst + (size_t)n * stride, stride, count - n);
    if (r->next_row == r->height && !r->finished && !r->soft_failed) {
        /* Reads the rest: the last IDAT's CRC and trailing zlib data, later chunks, IEND. */
        png_read_end(r->png, NULL);
        r->finished = 1;
    }
    *rows_done = n;
    return TILER_PNG_OK;
}

int tiler_png_reader_keep_16(tiler_png_reader *r) {
    if (!r->header_done || r->started) return TILER_PNG_ERR_ARGUMENT;
    r->keep_16 = png_get_bit_depth(r->png, r->info) == 16;
    return TILER_PNG_OK;
}

int tiler_png_reader_chunk(const tiler_png_reader *r, const char *name, const unsigned char **data, size_t *length) {
    png_unknown_chunkp chunks = NULL;
    int count = r->header_done ? png_get_unknown_chunks(r->png, r->info, &chunks) : 0;
    for (int i = 0; i < count; i++) {
        if (memcmp(chunks[i].name, name, 4) == 0) {
            *data = chunks[i].data;
            *length = chunks[i].size;
            return 1;
        }
    }
    return 0;
}

const char *tiler_png_reader_message(const tiler_png_reader *r) { return r->message; }

int64_t tiler_png_reader_error_row(const tiler_png_reader *r) { return r->error_row; }

void tiler_png_reader_destroy(tiler_png_reader *r) {
    if (r == NULL) return;
    if (r->png != NULL) png_destroy_read_struct(&r->png, r->info != NULL ? &r->info : NULL, NULL);
    free(r->row_pointers);
    free(r->image);
    free(r);
}
