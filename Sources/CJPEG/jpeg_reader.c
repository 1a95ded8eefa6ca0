/*
 * Streaming JPEG reader over libjpeg(-turbo)'s scanline API.
 *
 * Why a shim: libjpeg's default error_exit calls exit() and its errors unwind by longjmp, which
 * Swift cannot host. Each entry point sets its own setjmp; error_exit formats libjpeg's message and
 * longjmps back; the entry point returns a status code. Warnings (emit_message level -1, e.g.
 * "Premature end of JPEG file", "Corrupt JPEG data: ...") longjmp the same way unless the reader is
 * lenient, in which case they go to a callback. Locals written between setjmp and longjmp are
 * volatile. CMYK and YCCK (libjpeg turns YCCK into CMYK) are converted to RGB here, un-inverting
 * Adobe's inverted CMYK first.
 */
#include "CJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_reader_internal.h"

static tiler_jpeg_reader *tiler_jpeg_owner(j_common_ptr cinfo) { return (tiler_jpeg_reader *)cinfo->client_data; }

static void tiler_jpeg_on_error_exit(j_common_ptr cinfo) {
    tiler_jpeg_reader *r = tiler_jpeg_owner(cinfo);
    if (r->code == TILER_JPEG_OK) {
        if (cinfo->err->msg_code == JERR_OUT_OF_MEMORY) r->code = TILER_JPEG_ERR_NOMEM;
        else if (r->saw_eof) r->code = TILER_JPEG_ERR_TRUNCATED;
        else r->code = TILER_JPEG_ERR_CORRUPT;
    }
    (*cinfo->err->format_message)(cinfo, r->message);
    longjmp(*r->jump, 1);
}

static void tiler_jpeg_on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    tiler_jpeg_reader *r = tiler_jpeg_owner(cinfo);
    cinfo->err->num_warnings++;
    int eof = cinfo->err->msg_code == JWRN_JPEG_EOF;
    if (eof) r->saw_eof = 1;
    if (!r->lenient) {
        r->code = eof ? TILER_JPEG_ERR_TRUNCATED : TILER_JPEG_ERR_CORRUPT;
        (*cinfo->err->format_message)(cinfo, r->message);
        longjmp(*r->jump, 1);
    }
    if (r->warn == NULL) return;
    r->warnings += 1;
    if (r->warnings < TILER_JPEG_MAX_WARNINGS) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        r->warn(r->warn_context, text);
    } else if (r->warnings == TILER_JPEG_MAX_WARNINGS) {
        r->warn(r->warn_context, "too many warnings; further warnings suppressed");
    }
}

static void tiler_jpeg_on_output_message(j_common_ptr cinfo) { (void)cinfo; }

/*
 * The source: jpeg_stdio_src's, reading 1 MiB at a time instead of 4 KiB. libjpeg-turbo's Huffman decoder takes its
 * fast path only while 512 bytes per block of the MCU remain in the buffer (1.5 KiB for three components), so with
 * 4 KiB refills over a third of the data went through the slow path, and each refill is a call out of the decoder:
 * measured on a 16384² Q90 4:4:4 JPEG decoded at 1/8 (the Huffman decoding, which bounds a slice), 1.31–1.34 s
 * through jpeg_stdio_src against 1.27–1.30 s through this, 6 rounds each.
 */
#define TILER_JPEG_SOURCE_BYTES ((size_t)1 << 20)

static void tiler_jpeg_source_init(j_decompress_ptr cinfo) { tiler_jpeg_owner((j_common_ptr)cinfo)->source_started = 0; }

static boolean tiler_jpeg_source_fill(j_decompress_ptr cinfo) {
    tiler_jpeg_reader *r = tiler_jpeg_owner((j_common_ptr)cinfo);
    size_t count = fread(r->source_buffer, 1, TILER_JPEG_SOURCE_BYTES, r->fp);
    if (count == 0) {
        if (ferror(r->fp)) ERREXIT(cinfo, JERR_FILE_READ);
        if (!r->source_started) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        /* As jpeg_stdio_src: warn (an error for a strict reader), then end the data with a fake EOI. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        r->source_buffer[0] = (JOCTET)0xFF;
        r->source_buffer[1] = (JOCTET)JPEG_EOI;
        count = 2;
    }
    r->source.next_input_byte = r->source_buffer;
    r->source.bytes_in_buffer = count;
    r->source_started = 1;
    return TRUE;
}

static void tiler_jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(cinfo);
    }
    source->next_input_byte += (size_t)count;
    source->bytes_in_buffer -= (size_t)count;
}

static void tiler_jpeg_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

/* Points libjpeg at the reader's source (its buffer allocated here; longjmps on failure). */
static void tiler_jpeg_source_attach(tiler_jpeg_reader *r) {
    if (r->source_buffer == NULL) {
        r->source_buffer = malloc(TILER_JPEG_SOURCE_BYTES);
        if (r->source_buffer == NULL) ERREXIT(&r->cinfo, JERR_OUT_OF_MEMORY);
    }
    r->source.init_source = tiler_jpeg_source_init;
    r->source.fill_input_buffer = tiler_jpeg_source_fill;
    r->source.skip_input_data = tiler_jpeg_source_skip;
    r->source.resync_to_restart = jpeg_resync_to_restart;
    r->source.term_source = tiler_jpeg_source_term;
    r->source.bytes_in_buffer = 0;
    r->source.next_input_byte = NULL;
    r->cinfo.src = &r->source;
}

/* libjpeg calls this while absorbing input; it stops files with absurd numbers of progressive scans. */
static void tiler_jpeg_on_progress(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > TILER_JPEG_MAX_SCANS) {
        tiler_jpeg_reader *r = tiler_jpeg_owner(cinfo);
        r->code = TILER_JPEG_ERR_CORRUPT;
        snprintf(r->message, sizeof r->message, "too many progressive scans (over %d)", TILER_JPEG_MAX_SCANS);
        longjmp(r->jmp, 1);
    }
}

tiler_jpeg_reader *tiler_jpeg_reader_create(FILE *fp, int lenient, tiler_jpeg_warning_fn warn, void *warn_context) {
    tiler_jpeg_reader *volatile r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->fp = fp;
    r->lenient = lenient;
    r->warn = warn;
    r->warn_context = warn_context;
    r->error_row = -1;
    r->jump = &r->jmp;
    r->cinfo.err = jpeg_std_error(&r->err);
    r->err.error_exit = tiler_jpeg_on_error_exit;
    r->err.emit_message = tiler_jpeg_on_emit_message;
    r->err.output_message = tiler_jpeg_on_output_message;
    r->cinfo.client_data = r;
    if (setjmp(r->jmp)) { /* jpeg_create_decompress fails only when memory runs out */
        jpeg_destroy_decompress(&r->cinfo);
        free(r);
        return NULL;
    }
    jpeg_create_decompress(&r->cinfo);
    r->progress.progress_monitor = tiler_jpeg_on_progress;
    r->cinfo.progress = &r->progress;
    return r;
}

static int tiler_jpeg_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return TILER_JPEG_CS_GRAY;
    case JCS_RGB: return TILER_JPEG_CS_RGB;
    case JCS_YCbCr: return TILER_JPEG_CS_YCBCR;
    case JCS_CMYK: return TILER_JPEG_CS_CMYK;
    case JCS_YCCK: return TILER_JPEG_CS_YCCK;
    default: return TILER_JPEG_CS_UNKNOWN;
    }
}

static void tiler_jpeg_find_exif(tiler_jpeg_reader *r, tiler_jpeg_header *header) {
    for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            header->exif = m->data + 6;
            header->exif_length = m->data_length - 6;
            return;
        }
    }
}

/* Chooses the output colour space. Runs under the caller's setjmp. */
static void tiler_jpeg_choose_output(tiler_jpeg_reader *r, tiler_jpeg_header *header) {
    switch (r->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        r->cinfo.out_color_space = JCS_GRAYSCALE;
        header->out_channels = 1;
        break;
    case JCS_RGB:
    case JCS_YCbCr:
        r->cinfo.out_color_space = JCS_RGB;
        header->out_channels = 3;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        r->cinfo.out_color_space = JCS_CMYK;
        header->out_channels = 3;
        r->cmyk = 1;
        r->inverted = r->cinfo.saw_Adobe_marker ? 1 : 0;
        break;
    default:
        r->code = TILER_JPEG_ERR_CORRUPT;
        snprintf(r->message, sizeof r->message, "unsupported JPEG colour space (%d components, no known transform)",
                 r->cinfo.num_components);
        longjmp(r->jmp, 1);
    }
}

int tiler_jpeg_reader_read_header(tiler_jpeg_reader *r, tiler_jpeg_header *header) {
    if (r->header_done || r->code != TILER_JPEG_OK) {
        if (r->code == TILER_JPEG_OK) {
            r->code = TILER_JPEG_ERR_ARGUMENT;
            snprintf(r->message, sizeof r->message, "header already read");
        }
        return r->code;
    }
    if (setjmp(r->jmp)) return r->code;
    tiler_jpeg_source_attach(r);
    jpeg_save_markers(&r->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&r->cinfo, JPEG_APP0 + 2, 0xFFFF);
    (void)jpeg_read_header(&r->cinfo, TRUE);

    memset(header, 0, sizeof *header);
    header->width = r->cinfo.image_width;
    header->height = r->cinfo.image_height;
    header->components = r->cinfo.num_components;
    header->color_space = tiler_jpeg_color_space(r->cinfo.jpeg_color_space);
    header->precision = r->cinfo.data_precision;
    header->progressive = r->cinfo.progressive_mode ? 1 : 0;
    header->saw_adobe = r->cinfo.saw_Adobe_marker ? 1 : 0;
    for (int i = 0; i < r->cinfo.num_components && i < 4; i++) {
        header->h_samp[i] = r->cinfo.comp_info[i].h_samp_factor;
        header->v_samp[i] = r->cinfo.comp_info[i].v_samp_factor;
    }
    tiler_jpeg_find_exif(r, header);
    tiler_jpeg_choose_output(r, header);
    r->header_done = 1;
    return TILER_JPEG_OK;
}

/* R = 255·(1−C)(1−K) with c' = 255·(1−C) etc.; Adobe stores c' directly, plain CMYK stores 255·C. */
static void tiler_jpeg_cmyk_to_rgb(const unsigned char *src, unsigned char *dst, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, src += 4, dst += 3) {
        unsigned c = src[0], m = src[1], y = src[2], k = src[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        dst[0] = (unsigned char)((c * k + 127) / 255);
        dst[1] = (unsigned char)((m * k + 127) / 255);
        dst[2] = (unsigned char)((y * k + 127) / 255);
    }
}

/* Reads up to `count` rows (count <= TILER_JPEG_BATCH). Runs under the caller's setjmp. */
static uint32_t tiler_jpeg_read_batch(tiler_jpeg_reader *r, unsigned char *dst, size_t stride, uint32_t count) {
    JSAMPROW rows[TILER_JPEG_BATCH];
    size_t cmyk_stride = (size_t)r->cinfo.output_width * 4;
    for (uint32_t i = 0; i < count; i++) {
        rows[i] = r->cmyk ? r->cmyk_rows + i * cmyk_stride : dst + i * stride;
    }
    uint32_t done = 0;
    while (done < count && r->cinfo.output_scanline < r->cinfo.output_height) {
        done += jpeg_read_scanlines(&r->cinfo, rows + done, count - done);
    }
    if (r->cmyk) {
        for (uint32_t i = 0; i < done; i++) {
            tiler_jpeg_cmyk_to_rgb(rows[i], dst + i * stride, r->cinfo.output_width, r->inverted);
        }
    }
    return done;
}

static void tiler_jpeg_start(tiler_jpeg_reader *r) {
    (void)jpeg_start_decompress(&r->cinfo);
    r->started = 1;
    if (!r->lenient && !r->cmyk && !r->unpipelined && tiler_jpeg_pipeline_suits(&r->cinfo)) r->pipeline = tiler_jpeg_pipeline_start(r);
    if (r->pipeline != NULL) return;
    if (r->cmyk) {
        r->cmyk_rows = malloc((size_t)r->cinfo.output_width * 4 * TILER_JPEG_BATCH);
        if (r->cmyk_rows == NULL) ERREXIT1(&r->cinfo, JERR_OUT_OF_MEMORY, 0);
    }
}

int tiler_jpeg_reader_read_rows(tiler_jpeg_reader *r, unsigned char *dst, size_t stride, uint32_t count,
                                uint32_t *rows_done) {
    volatile uint32_t n = 0;
    *rows_done = 0;
    if (r->pipeline != NULL) return tiler_jpeg_pipeline_read(r, dst, stride, count, rows_done);
    if (!r->header_done && r->code == TILER_JPEG_OK) {
        r->code = TILER_JPEG_ERR_ARGUMENT;
        snprintf(r->message, sizeof r->message, "rows requested before the header was read");
    }
    if (r->code != TILER_JPEG_OK) return r->code;
    if (setjmp(r->jmp)) {
        r->error_row = (int64_t)r->cinfo.output_scanline;
        *rows_done = n;
        return r->code;
    }
    if (!r->started) {
        tiler_jpeg_start(r);
        if (r->pipeline != NULL) return tiler_jpeg_pipeline_read(r, dst, stride, count, rows_done);
    }
    while (n < count && r->cinfo.output_scanline < r->cinfo.output_height) {
        uint32_t batch = count - n < TILER_JPEG_BATCH ? count - n : TILER_JPEG_BATCH;
        n += tiler_jpeg_read_batch(r, dst + (size_t)n * stride, stride, batch);
    }
    if (r->cinfo.output_scanline == r->cinfo.output_height && !r->finished) {
        (void)jpeg_finish_decompress(&r->cinfo); /* reads to EOI: a file cut just before it fails here */
        r->finished = 1;
    }
    *rows_done = n;
    return TILER_JPEG_OK;
}

int tiler_jpeg_reader_marker(const tiler_jpeg_reader *r, int app, size_t index, const unsigned char **data,
                             size_t *length) {
    if (!r->header_done) return 0;
    size_t seen = 0;
    for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_APP0 + app) continue;
        if (seen++ == index) {
            *data = m->data;
            *length = m->data_length;
            return 1;
        }
    }
    return 0;
}

int tiler_jpeg_reader_keep_cmyk(tiler_jpeg_reader *r) {
    if (!r->header_done || r->started || !r->cmyk) return TILER_JPEG_ERR_ARGUMENT;
    r->cmyk = 0; /* rows now go straight to the caller as CMYK */
    return TILER_JPEG_OK;
}

int tiler_jpeg_reader_set_scale(tiler_jpeg_reader *r, unsigned denominator, uint32_t *width, uint32_t *height) {
    if (!r->header_done || r->started || r->code != TILER_JPEG_OK) return TILER_JPEG_ERR_ARGUMENT;
    if (denominator != 1 && denominator != 2 && denominator != 4 && denominator != 8) return TILER_JPEG_ERR_ARGUMENT;
    if (setjmp(r->jmp)) return r->code;
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = denominator;
    jpeg_calc_output_dimensions(&r->cinfo);
    *width = r->cinfo.output_width;
    *height = r->cinfo.output_height;
    return TILER_JPEG_OK;
}

const char *tiler_jpeg_reader_message(const tiler_jpeg_reader *r) { return r->message; }

int64_t tiler_jpeg_reader_error_row(const tiler_jpeg_reader *r) { return r->error_row; }

int tiler_jpeg_reader_set_pipelined(tiler_jpeg_reader *r, int allowed) {
    if (r->started) return TILER_JPEG_ERR_ARGUMENT;
    r->unpipelined = !allowed;
    return TILER_JPEG_OK;
}

void tiler_jpeg_reader_destroy(tiler_jpeg_reader *r) {
    if (r == NULL) return;
    tiler_jpeg_pipeline_stop(r->pipeline); /* before libjpeg's state goes: its thread may be decoding */
    jpeg_destroy_decompress(&r->cinfo);
    free(r->cmyk_rows);
    free(r->source_buffer);
    free(r);
}
