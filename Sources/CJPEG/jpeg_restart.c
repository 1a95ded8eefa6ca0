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
#include "CJPEG.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

struct tiler_jpeg_restart_index {
    int32_t width, height, components;
    int32_t intervals_per_row, mcu_rows, interval_mcus;
    unsigned char *header; /* SOI up to the end of the SOS segment */
    size_t header_length;
    size_t sof_offset; /* of the SOF segment's length field in header */
    int64_t *starts;   /* intervals + 1 offsets: where each interval's data begins; the last is the end after EOI */
    const unsigned char *map; /* the file as indexed, mapped read-only (shared: no copy of its pages) */
    size_t map_length;
};

static void set_message(char *message, size_t size, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
}

static uint16_t be16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static int parse_header(tiler_jpeg_restart_index *index, const unsigned char *data, size_t length, size_t *entropy_start,
                        char *message, size_t message_size) {
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) {
        set_message(message, message_size, "not a JPEG file");
        return TILER_JPEG_ERR_CORRUPT;
    }
    size_t position = 2;
    int32_t restart = 0;
    int saw_sof = 0;
    while (position + 4 <= length) {
        if (data[position] != 0xFF) {
            set_message(message, message_size, "a JPEG marker was expected");
            return TILER_JPEG_ERR_CORRUPT;
        }
        unsigned char marker = data[position + 1];
        if (marker == 0xFF) {
            position++;
            continue;
        }
        size_t segment = be16(data + position + 2);
        if (segment < 2 || position + 2 + segment > length) {
            set_message(message, message_size, "a JPEG segment runs past the end of the file");
            return TILER_JPEG_ERR_CORRUPT;
        }
        const unsigned char *body = data + position + 4;
        if (marker == 0xC0 || marker == 0xC1) {
            if (segment < 8 || body[0] != 8) {
                set_message(message, message_size, "not 8-bit JPEG data");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            index->height = be16(body + 1);
            index->width = be16(body + 3);
            index->components = body[5];
            if ((index->components != 1 && index->components != 3) || segment < 8 + 3 * (size_t)index->components) {
                set_message(message, message_size, "not 1 or 3 components");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            for (int c = 0; c < index->components; c++) {
                if (body[6 + 3 * c + 1] != 0x11) {
                    set_message(message, message_size, "subsampled chroma");
                    return TILER_JPEG_ERR_ARGUMENT;
                }
            }
            index->sof_offset = position + 2;
            saw_sof = 1;
        } else if ((marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)) {
            set_message(message, message_size, "not baseline Huffman JPEG");
            return TILER_JPEG_ERR_ARGUMENT;
        } else if (marker == 0xDD && segment >= 4) {
            restart = be16(body);
        } else if (marker == 0xDA) {
            *entropy_start = position + 2 + segment;
            index->header_length = *entropy_start;
            if (!saw_sof || restart <= 0 || index->width <= 0 || index->height <= 0) {
                set_message(message, message_size, "no restart markers");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            int32_t mcus_per_row = (index->width + 7) / 8;
            if (mcus_per_row % restart || index->width % (restart * 8) || index->height % 8) {
                set_message(message, message_size, "restart intervals do not tile the image");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            index->interval_mcus = restart;
            index->intervals_per_row = mcus_per_row / restart;
            index->mcu_rows = index->height / 8;
            return TILER_JPEG_OK;
        }
        position += 2 + segment;
    }
    set_message(message, message_size, "the JPEG header has no SOS");
    return TILER_JPEG_ERR_CORRUPT;
}

/* Reads `length` bytes at `offset`; 0 when all were read. */
static int read_at(int fd, unsigned char *buffer, size_t length, int64_t offset) {
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(fd, buffer + done, length - done, (off_t)(offset + (int64_t)done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

/* The header is read from at most this much of the file; a JPEG whose header is longer is read the ordinary way. */
#define RESTART_HEADER_LIMIT ((size_t)4 << 20)
/* The entropy-coded data is scanned for markers this much at a time. */
#define RESTART_SCAN_CHUNK ((size_t)1 << 20)

int tiler_jpeg_restart_index_create(const char *path, tiler_jpeg_restart_index **out, char *message, size_t message_size) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_message(message, message_size, strerror(errno));
        return TILER_JPEG_ERR_IO;
    }
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_size < 4) {
        close(fd);
        set_message(message, message_size, "not a JPEG file");
        return TILER_JPEG_ERR_CORRUPT;
    }
    /* Indexed by reading: a read of a file truncated meanwhile just comes up short. */
    size_t length = (size_t)status.st_size;
    size_t head = length < RESTART_HEADER_LIMIT ? length : RESTART_HEADER_LIMIT;
    unsigned char *buffer = malloc(head > RESTART_SCAN_CHUNK + 1 ? head : RESTART_SCAN_CHUNK + 1);
    tiler_jpeg_restart_index *index = calloc(1, sizeof *index);
    int code = TILER_JPEG_ERR_NOMEM;
    if (buffer == NULL || index == NULL) goto fail;
    code = TILER_JPEG_ERR_IO;
    if (read_at(fd, buffer, head, 0) != 0) {
        set_message(message, message_size, "the JPEG could not be read");
        goto fail;
    }
    size_t start = 0;
    code = parse_header(index, buffer, head, &start, message, message_size);
    if (code != TILER_JPEG_OK) goto fail;
    int64_t count = (int64_t)index->intervals_per_row * index->mcu_rows;
    index->starts = malloc((size_t)(count + 1) * sizeof(int64_t));
    index->header = malloc(index->header_length);
    code = TILER_JPEG_ERR_NOMEM;
    if (index->starts == NULL || index->header == NULL) goto fail;
    memcpy(index->header, buffer, index->header_length);
    index->starts[0] = (int64_t)start;
    int64_t found = 1;
    int64_t end = -1;
    int64_t offset = (int64_t)start; /* the file offset of buffer[0] */
    int stopped = 0;
    while (!stopped && offset + 1 < (int64_t)length) {
        /* One byte more than is scanned, so a marker's second byte is always in the buffer. */
        size_t want = (size_t)((int64_t)length - offset) < RESTART_SCAN_CHUNK + 1 ? (size_t)((int64_t)length - offset)
                                                                                    : RESTART_SCAN_CHUNK + 1;
        code = TILER_JPEG_ERR_IO;
        if (read_at(fd, buffer, want, offset) != 0) {
            set_message(message, message_size, "the JPEG could not be read");
            goto fail;
        }
        size_t i = 0;
        while (i + 1 < want) {
            const unsigned char *hit = memchr(buffer + i, 0xFF, want - 1 - i);
            if (hit == NULL) {
                i = want - 1;
                break;
            }
            i = (size_t)(hit - buffer);
            unsigned char next = buffer[i + 1];
            if (next == 0x00 || next == 0xFF) {
                i += next == 0x00 ? 2 : 1;
            } else if (next >= 0xD0 && next <= 0xD7) {
                if (found >= count) {
                    stopped = 1;
                    break;
                }
                index->starts[found++] = offset + (int64_t)i + 2;
                i += 2;
            } else {
                if (next == 0xD9) end = offset + (int64_t)i + 2;
                stopped = 1;
                break;
            }
        }
        offset += (int64_t)i;
    }
    code = TILER_JPEG_ERR_CORRUPT;
    if (found != count || end < 0) {
        set_message(message, message_size, "the restart markers do not match the image size");
        goto fail;
    }
    index->starts[count] = end;
    /* Mapped, so that reading a region costs no system call per MCU row (one pread each was 0.75 µs, about 40 µs of a
     * 256-pixel tile one level down; bench/slide-serve.sh). A copy out of the mapping is guarded (copy_mapped). */
    code = TILER_JPEG_ERR_IO;
    void *map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        set_message(message, message_size, strerror(errno));
        goto fail;
    }
    index->map = map;
    index->map_length = length;
    free(buffer);
    close(fd);
    *out = index;
    return TILER_JPEG_OK;
fail:
    free(buffer);
    close(fd);
    tiler_jpeg_restart_index_free(index);
    return code;
}

void tiler_jpeg_restart_index_free(tiler_jpeg_restart_index *index) {
    if (index == NULL) return;
    if (index->map != NULL) munmap((void *)index->map, index->map_length);
    free(index->starts);
    free(index->header);
    free(index);
}

void tiler_jpeg_restart_index_geometry(const tiler_jpeg_restart_index *index, int32_t *width, int32_t *height, int32_t *interval_width,
                                       int32_t *components) {
    *width = index->width;
    *height = index->height;
    *interval_width = index->interval_mcus * 8;
    *components = index->components;
}

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
    set_message(d->message, d->message_size, text);
    longjmp(d->jmp, 1);
}

/* Warnings ("Corrupt JPEG data") are errors: the data was indexed as sound. */
static void restart_on_message(j_common_ptr cinfo, int level) {
    if (level < 0) restart_on_error(cinfo);
}

static void restart_on_output(j_common_ptr cinfo) { (void)cinfo; }

/*
 * Copies out of a mapping, guarded. A file truncated in place after it was mapped makes a read of its vanished pages
 * raise SIGBUS, which would take the server down: while a thread copies, a SIGBUS it takes jumps back to the copy,
 * which fails (the region reads as damaged; the caller notices that the file changed). A SIGBUS anywhere else is handed
 * to the handler there was before (the Swift runtime's backtracer, or the default action).
 */
static _Thread_local sigjmp_buf *volatile guarded_copy;
static struct sigaction previous_bus_action;
static pthread_once_t bus_handler_once = PTHREAD_ONCE_INIT;

static void on_bus_error(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    sigjmp_buf *jump = guarded_copy;
    if (jump != NULL) siglongjmp(*jump, 1);
    /* Not ours: put the previous handler back. A fault repeats on return and reaches it; a sent signal is sent again. */
    sigaction(SIGBUS, &previous_bus_action, NULL);
    if (info == NULL || info->si_code <= 0) raise(signal_number);
}

static void install_bus_handler(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    /* SA_NODEFER: SIGBUS stays unblocked in the handler, so jumping out of it leaves the thread's mask as it was (and
     * sigsetjmp need not save the mask, a system call). */
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_bus_action);
}

/* Copies rows r0…r1 of `columns` intervals from column c0 of the mapped file into buffer at `at`. */
static void copy_rows(const tiler_jpeg_restart_index *index, unsigned char *buffer, size_t at, int32_t r0, int32_t r1, int32_t c0,
                      int32_t columns) {
    for (int32_t r = r0; r <= r1; r++) {
        int64_t first = (int64_t)r * index->intervals_per_row + c0;
        size_t length = (size_t)(index->starts[first + columns] - index->starts[first]);
        memcpy(buffer + at, index->map + index->starts[first], length);
        at += length;
    }
}

/* copy_rows, guarded: 0, or -1 when the mapping faulted (the file shrank since it was mapped). */
static int copy_mapped(const tiler_jpeg_restart_index *index, unsigned char *buffer, size_t at, int32_t r0, int32_t r1, int32_t c0,
                       int32_t columns) {
    pthread_once(&bus_handler_once, install_bus_handler);
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0)) {
        guarded_copy = NULL;
        return -1;
    }
    guarded_copy = &jump;
    copy_rows(index, buffer, at, r0, r1, c0, columns);
    guarded_copy = NULL;
    return 0;
}

int tiler_jpeg_restart_read(const tiler_jpeg_restart_index *index, int32_t scale_denom, int32_t x, int32_t y, int32_t width,
                            int32_t height, uint8_t *rgb, size_t stride, char *message, size_t message_size) {
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return TILER_JPEG_ERR_ARGUMENT;
    int32_t interval_width = index->interval_mcus * 8 / scale_denom;
    int32_t row_height = 8 / scale_denom;
    if (x < 0 || y < 0 || width <= 0 || height <= 0 || (int64_t)x + width > index->width / scale_denom ||
        (int64_t)y + height > index->height / scale_denom) {
        set_message(message, message_size, "the region is outside the JPEG");
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
    if (copy_mapped(index, buffer, index->header_length, r0, r1, c0, columns) != 0) {
        set_message(message, message_size, "the JPEG is shorter than when it was indexed");
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
                set_message(message, message_size, "a restart marker is not where it was indexed");
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
