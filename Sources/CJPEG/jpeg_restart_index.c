/*
 * Indexing a baseline JPEG with restart markers for jpeg_restart.c: its header up to the first scan, where each restart
 * interval's data begins (one pass over the entropy-coded bytes), and the file mapped for the reads of its regions.
 */
#include "jpeg_restart_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint16_t be16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static int parse_header(tiler_jpeg_restart_index *index, const unsigned char *data, size_t length, size_t *entropy_start,
                        char *message, size_t message_size) {
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) {
        tiler_jpeg_restart_message(message, message_size, "not a JPEG file");
        return TILER_JPEG_ERR_CORRUPT;
    }
    size_t position = 2;
    int32_t restart = 0;
    int saw_sof = 0;
    while (position + 4 <= length) {
        if (data[position] != 0xFF) {
            tiler_jpeg_restart_message(message, message_size, "a JPEG marker was expected");
            return TILER_JPEG_ERR_CORRUPT;
        }
        unsigned char marker = data[position + 1];
        if (marker == 0xFF) {
            position++;
            continue;
        }
        size_t segment = be16(data + position + 2);
        if (segment < 2 || position + 2 + segment > length) {
            tiler_jpeg_restart_message(message, message_size, "a JPEG segment runs past the end of the file");
            return TILER_JPEG_ERR_CORRUPT;
        }
        const unsigned char *body = data + position + 4;
        if (marker == 0xC0 || marker == 0xC1) {
            if (segment < 8 || body[0] != 8) {
                tiler_jpeg_restart_message(message, message_size, "not 8-bit JPEG data");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            index->height = be16(body + 1);
            index->width = be16(body + 3);
            index->components = body[5];
            if ((index->components != 1 && index->components != 3) || segment < 8 + 3 * (size_t)index->components) {
                tiler_jpeg_restart_message(message, message_size, "not 1 or 3 components");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            for (int c = 0; c < index->components; c++) {
                if (body[6 + 3 * c + 1] != 0x11) {
                    tiler_jpeg_restart_message(message, message_size, "subsampled chroma");
                    return TILER_JPEG_ERR_ARGUMENT;
                }
            }
            index->sof_offset = position + 2;
            saw_sof = 1;
        } else if ((marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)) {
            tiler_jpeg_restart_message(message, message_size, "not baseline Huffman JPEG");
            return TILER_JPEG_ERR_ARGUMENT;
        } else if (marker == 0xDD && segment >= 4) {
            restart = be16(body);
        } else if (marker == 0xDA) {
            *entropy_start = position + 2 + segment;
            index->header_length = *entropy_start;
            if (!saw_sof || restart <= 0 || index->width <= 0 || index->height <= 0) {
                tiler_jpeg_restart_message(message, message_size, "no restart markers");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            int32_t mcus_per_row = (index->width + 7) / 8;
            if (mcus_per_row % restart || index->width % (restart * 8) || index->height % 8) {
                tiler_jpeg_restart_message(message, message_size, "restart intervals do not tile the image");
                return TILER_JPEG_ERR_ARGUMENT;
            }
            index->interval_mcus = restart;
            index->intervals_per_row = mcus_per_row / restart;
            index->mcu_rows = index->height / 8;
            return TILER_JPEG_OK;
        }
        position += 2 + segment;
    }
    tiler_jpeg_restart_message(message, message_size, "the JPEG header has no SOS");
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
        tiler_jpeg_restart_message(message, message_size, strerror(errno));
        return TILER_JPEG_ERR_IO;
    }
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_size < 4) {
        close(fd);
        tiler_jpeg_restart_message(message, message_size, "not a JPEG file");
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
        tiler_jpeg_restart_message(message, message_size, "the JPEG could not be read");
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
            tiler_jpeg_restart_message(message, message_size, "the JPEG could not be read");
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
        tiler_jpeg_restart_message(message, message_size, "the restart markers do not match the image size");
        goto fail;
    }
    index->starts[count] = end;
    /* Mapped, so that reading a region costs no system call per MCU row (one pread each was 0.75 µs, about 40 µs of a
     * 256-pixel tile one level down; bench/slide-serve.sh). A copy out of the mapping is guarded (bus_guard.c); the
     * mappings are kept within a budget (jpeg_restart_maps.c). */
    code = TILER_JPEG_ERR_NOMEM;
    index->path = strdup(path);
    if (index->path == NULL) goto fail;
    code = tiler_jpeg_restart_map_adopt(index, fd, &status, message, message_size);
    if (code != TILER_JPEG_OK) goto fail;
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
    tiler_jpeg_restart_map_forget(index);
    free(index->path);
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
