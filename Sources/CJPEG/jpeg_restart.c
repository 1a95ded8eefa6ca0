/*
 * Regions of a baseline JPEG with restart markers, decoded in one pass.
 *
 * Why it exists: a Hamamatsu VMS slide is a grid of large JPEGs with restart markers, and OpenSlide 3.4 reads one
 * restart interval (256 × 8 pixels in a typical file) per call: it opens the file, rebuilds a JPEG of that interval,
 * decodes it and closes the file again, 32 times for one 256-pixel Deep Zoom tile of the full resolution and 512 times
 * for one two levels down (libjpeg's DCT scaling makes those levels from the same data). Measured on bench/make-vms.py's
 * slide, the opening, seeking and per-interval decoder set-up are more than half of the time. Here a JPEG's restart
 * intervals are indexed once (where each begins), and a region is copied, an MCU row of intervals at a time, from the
 * file mapped into memory at indexing into one buffer that is itself a JPEG: the header with the region's size in its SOF, then the intervals under the region
 * row by row, each one's closing restart marker renumbered to follow on (the last one made an EOI). Restart intervals
 * are independent (the DC predictions restart), so every pixel decodes to what OpenSlide's per-interval decoding gives:
 * same library, same DCT scaling, no chroma upsampling across intervals (only unsubsampled data is indexed).
 *
 * Limits (anything else is refused with TILER_JPEG_ERR_ARGUMENT and read the ordinary way): 8-bit baseline or extended
 * Huffman (SOF0/SOF1), 1 or 3 components all sampled 1×1, a restart interval dividing the MCU row, a width a whole
 * number of intervals and a height a whole number of MCU rows.
 */
#include "jpeg_restart_internal.h"
#include "bus_guard.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

struct restart_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    char *message;
    size_t message_size;
};

static void restart_on_error(j_common_ptr cinfo) {
    struct restart_decoder *d = (struct restart_decoder *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    tiler_jpeg_restart_message(d->message, d->message_size, text);
    longjmp(d->jmp, 1);
}

/* Warnings ("Corrupt JPEG data") are errors: the data was indexed as sound. */
static void restart_on_message(j_common_ptr cinfo, int level) {
    if (level < 0) restart_on_error(cinfo);
}

static void restart_on_output(j_common_ptr cinfo) { (void)cinfo; }

/* The rows r0…r1 of `columns` intervals from column c0 to copy from the mapped file into buffer at `at`. */
struct row_copy {
    const tiler_jpeg_restart_index *index;
    unsigned char *buffer;
    size_t at;
    int32_t r0, r1, c0, columns;
};

static void copy_rows(void *context) {
    const struct row_copy *copy = context;
    const tiler_jpeg_restart_index *index = copy->index;
    size_t at = copy->at;
    for (int32_t r = copy->r0; r <= copy->r1; r++) {
        int64_t first = (int64_t)r * index->intervals_per_row + copy->c0;
        size_t length = (size_t)(index->starts[first + copy->columns] - index->starts[first]);
        memcpy(copy->buffer + at, index->map + index->starts[first], length);
        at += length;
    }
}

int tiler_jpeg_restart_read(tiler_jpeg_restart_index *index, int32_t scale_denom, int32_t x, int32_t y, int32_t width,
                            int32_t height, uint8_t *rgb, size_t stride, char *message, size_t message_size) {
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return TILER_JPEG_ERR_ARGUMENT;
    int32_t interval_width = index->interval_mcus * 8 / scale_denom;
    int32_t row_height = 8 / scale_denom;
    if (x < 0 || y < 0 || width <= 0 || height <= 0 || (int64_t)x + width > index->width / scale_denom ||
        (int64_t)y + height > index->height / scale_denom) {
        tiler_jpeg_restart_message(message, message_size, "the region is outside the JPEG");
        return TILER_JPEG_ERR_ARGUMENT;
    }
    int32_t c0 = x / interval_width, c1 = (x + width - 1) / interval_width;
    int32_t r0 = y / row_height, r1 = (y + height - 1) / row_height;
    int32_t columns = c1 - c0 + 1;
    size_t total = index->header_length + 2;
    for (int32_t r = r0; r <= r1; r++) {
        int64_t first = (int64_t)r * index->intervals_per_row + c0;
        total += (size_t)(index->starts[first + columns] - index->starts[first]);
    }
    unsigned char *buffer = malloc(total);
    if (buffer == NULL) return TILER_JPEG_ERR_NOMEM;
    memcpy(buffer, index->header, index->header_length);
    /* The SOF's height and width become the region's (in full-scale pixels). */
    unsigned char *sof = buffer + index->sof_offset + 3;
    int32_t full_width = columns * index->interval_mcus * 8, full_height = (r1 - r0 + 1) * 8;
    sof[0] = (unsigned char)(full_height >> 8);
    sof[1] = (unsigned char)full_height;
    sof[2] = (unsigned char)(full_width >> 8);
    sof[3] = (unsigned char)full_width;
    struct row_copy copy = {index, buffer, index->header_length, r0, r1, c0, columns};
    int pinned = tiler_jpeg_restart_map_pin(index, message, message_size);
    if (pinned != TILER_JPEG_OK) {
        free(buffer);
        return pinned;
    }
    int bus_error = tiler_bus_guarded(copy_rows, &copy);
    tiler_jpeg_restart_map_unpin(index);
    if (bus_error != 0) {
        tiler_jpeg_restart_message(message, message_size, "the JPEG is shorter than when it was indexed");
        free(buffer);
        return TILER_JPEG_ERR_IO;
    }
    size_t at = index->header_length;
    int32_t sequence = 0;
    int code = TILER_JPEG_OK;
    for (int32_t r = r0; r <= r1 && code == TILER_JPEG_OK; r++) {
        int64_t first = (int64_t)r * index->intervals_per_row + c0;
        for (int32_t c = 0; c < columns; c++) {
            /* Each interval ends with its restart marker (the file's last with EOI): renumber it to follow on. */
            size_t marker = at + (size_t)(index->starts[first + c + 1] - index->starts[first]) - 2;
            if (buffer[marker] != 0xFF || (buffer[marker + 1] < 0xD0 || buffer[marker + 1] > 0xD9 || buffer[marker + 1] == 0xD8)) {
                tiler_jpeg_restart_message(message, message_size, "a restart marker is not where it was indexed");
                code = TILER_JPEG_ERR_CORRUPT;
                break;
            }
            buffer[marker + 1] = (unsigned char)(0xD0 + sequence % 8);
            sequence++;
        }
        at += (size_t)(index->starts[first + columns] - index->starts[first]);
    }
    if (code != TILER_JPEG_OK) {
        free(buffer);
        return code;
    }
    buffer[at - 1] = 0xD9; /* the last interval's marker: EOI */

    struct restart_decoder d;
    memset(&d, 0, sizeof d);
    d.message = message;
    d.message_size = message_size;
    d.cinfo.err = jpeg_std_error(&d.err);
    d.err.error_exit = restart_on_error;
    d.err.emit_message = restart_on_message;
    d.err.output_message = restart_on_output;
    d.cinfo.client_data = &d;
    uint8_t *volatile line = NULL;
    if (setjmp(d.jmp)) {
        jpeg_destroy_decompress(&d.cinfo);
        free(line);
        free(buffer);
        return TILER_JPEG_ERR_CORRUPT;
    }
    jpeg_create_decompress(&d.cinfo);
    jpeg_mem_src(&d.cinfo, buffer, (unsigned long)at);
    jpeg_read_header(&d.cinfo, TRUE);
    d.cinfo.scale_num = 1;
    d.cinfo.scale_denom = (unsigned int)scale_denom;
    d.cinfo.out_color_space = index->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&d.cinfo);
    int channels = d.cinfo.output_components;
    line = malloc((size_t)d.cinfo.output_width * (size_t)channels);
    if (line == NULL) longjmp(d.jmp, 1);
    int32_t skip_x = x - c0 * interval_width, skip_y = y - r0 * row_height;
    /* A region of whole intervals across (a tile on the interval grid) is decoded straight into place. */
    int direct = channels == 3 && skip_x == 0 && (int32_t)d.cinfo.output_width == width;
    while (d.cinfo.output_scanline < d.cinfo.output_height && (int32_t)d.cinfo.output_scanline < skip_y + height) {
        int32_t row = (int32_t)d.cinfo.output_scanline;
        JSAMPROW rows[1] = {direct && row >= skip_y ? rgb + (size_t)(row - skip_y) * stride : line};
        jpeg_read_scanlines(&d.cinfo, rows, 1);
        if (row < skip_y || direct) continue;
        uint8_t *out = rgb + (size_t)(row - skip_y) * stride;
        const uint8_t *in = line + (size_t)skip_x * (size_t)channels;
        if (channels == 3) {
            memcpy(out, in, (size_t)width * 3);
        } else {
            for (int32_t i = 0; i < width; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = in[i];
        }
    }
    jpeg_abort_decompress(&d.cinfo);
    jpeg_destroy_decompress(&d.cinfo);
    free(line);
    free(buffer);
    return TILER_JPEG_OK;
}
