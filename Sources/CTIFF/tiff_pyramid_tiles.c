/*
 * Serving one stored tile of an open pyramid: its bytes as a standalone JPEG (pass-through), or its decoded pixels.
 *
 * Both start from the tile index copied at open: the tile's offset and byte count are checked against the file's size
 * and the tile's size before anything is allocated, then the bytes are read with pread (no shared file position, so any
 * number of threads at once). Pass-through never touches libtiff; decoding hands the bytes to one of the pyramid's
 * libtiff handles (TIFFReadFromUserBuffer), so libtiff never reads tile data itself and cannot be led astray by a
 * damaged index.
 */
#define _GNU_SOURCE /* preadv2, RWF_NOWAIT */
#include "tiff_pyramid_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* An Adobe APP14 segment with transform 0: the three components are RGB, not YCbCr (IIPImage issue 279). */
static const unsigned char tiler_tiff_adobe_rgb[16] = {0xFF, 0xEE, 0x00, 0x0E, 'A', 'd', 'o', 'b', 'e', 0x00, 0x64, 0, 0, 0, 0, 0};

int tiler_tiff_check_extent(const tiler_tiff_pyramid *p, int level, int column, int row, uint32_t *index, char *message,
                            size_t capacity) {
    if (level < 0 || level >= p->level_count) {
        tiler_tiff_say(message, capacity, "no level %d (the file has %d)", level, p->level_count);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    if (column < 0 || row < 0 || (uint32_t)column >= L->info.columns || (uint32_t)row >= L->info.rows) {
        tiler_tiff_say(message, capacity, "no tile (%d, %d) in level %d (%u × %u tiles)", column, row, level, L->info.columns, L->info.rows);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    *index = (uint32_t)row * L->info.columns + (uint32_t)column;
    uint64_t offset = L->offsets[*index], count = L->counts[*index];
    /* Generous for any codec (JPEG at quality 100 stays under twice the raw size), but never gigabytes. */
    uint64_t limit = (uint64_t)L->decoded_bytes * 4 + ((uint64_t)1 << 20);
    if (count == 0) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d has no data (TileByteCounts is 0)", column, row, level);
        return TILER_TIFF_ERR_CORRUPT;
    }
    if (offset > p->file_size || count > p->file_size - offset) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d lies past the end of the file (bytes %llu + %llu of %llu)", column, row,
                       level, (unsigned long long)offset, (unsigned long long)count, (unsigned long long)p->file_size);
        return TILER_TIFF_ERR_TRUNCATED;
    }
    if (count > limit) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d claims %llu bytes, too many for %u × %u pixels", column, row, level,
                       (unsigned long long)count, L->info.tile_width, L->info.tile_height);
        return TILER_TIFF_ERR_CORRUPT;
    }
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_read_stored(const tiler_tiff_pyramid *p, int level, int column, int row, unsigned char **data, size_t *length,
                                   char *message, size_t capacity) {
    return tiler_tiff_pyramid_read_stored_nowait(p, level, column, row, 0, data, length, message, capacity);
}

int tiler_tiff_pyramid_read_stored_nowait(const tiler_tiff_pyramid *p, int level, int column, int row, int nowait, unsigned char **data,
                                          size_t *length, char *message, size_t capacity) {
    uint32_t index = 0;
    int code = tiler_tiff_check_extent(p, level, column, row, &index, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    uint64_t offset = p->levels[level].offsets[index];
    size_t count = (size_t)p->levels[level].counts[index];
    unsigned char *buffer = malloc(count);
    if (buffer == NULL) return tiler_tiff_say(message, capacity, "out of memory reading a tile of %zu bytes", count), TILER_TIFF_ERR_NOMEM;
    size_t done = 0;
    while (done < count) {
        struct iovec part = {buffer + done, count - done};
        ssize_t n = nowait ? preadv2(p->fd, &part, 1, (off_t)(offset + done), RWF_NOWAIT)
                           : pread(p->fd, buffer + done, count - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && nowait && (errno == EAGAIN || errno == EOPNOTSUPP || errno == ENOSYS)) {
            free(buffer);
            return TILER_TIFF_WOULD_BLOCK;
        }
        if (n < 0) {
            tiler_tiff_say(message, capacity, "reading tile (%d, %d) of level %d failed: %s", column, row, level, strerror(errno));
            free(buffer);
            return TILER_TIFF_ERR_IO;
        }
        if (n == 0) {
            struct stat info;
            long long now = fstat(p->fd, &info) == 0 ? (long long)info.st_size : -1;
            tiler_tiff_say(message, capacity, "the file ends inside tile (%d, %d) of level %d: it changed since it was opened (%lld bytes, was %llu)",
                           column, row, level, now, (unsigned long long)p->file_size);
            free(buffer);
            return TILER_TIFF_ERR_TRUNCATED;
        }
        done += (size_t)n;
    }
    *data = buffer;
    *length = count;
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_jpeg_bound(const tiler_tiff_pyramid *p, int level, int column, int row, size_t *bound, char *message,
                                  size_t capacity) {
    uint32_t index = 0;
    int code = tiler_tiff_check_extent(p, level, column, row, &index, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    if (!L->info.jpeg_pass_through) {
        tiler_tiff_say(message, capacity, "level %d does not store JPEG tiles that can be passed through", level);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    *bound = (size_t)L->counts[index] + L->tables_length + sizeof tiler_tiff_adobe_rgb;
    return TILER_TIFF_OK;
}

/*
 * Whether `data` is a JPEG stream: SOI, whole marker segments up to a scan, EOI at the end, and quantization tables
 * in it or in the level's JPEGTables (`tables`). NULL when it is.
 */
static const char *tiler_tiff_jpeg_head_problem(const unsigned char *data, size_t available, size_t length, int tables, int *incomplete);

const char *tiler_tiff_jpeg_problem(const unsigned char *data, size_t length, int tables) {
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) return "is not JPEG data (no SOI marker)";
    while (length > 4 && data[length - 1] == 0) length--; /* zero padding after EOI */
    if (data[length - 2] != 0xFF || data[length - 1] != 0xD9) return "does not end with an EOI marker (cut short?)";
    int incomplete = 0;
    return tiler_tiff_jpeg_head_problem(data, length, length, tables, &incomplete);
}

/*
 * The marker segments of a JPEG stream of `length` bytes (up to its EOI) from SOI to the scan, of which the first
 * `available` are in `data`: NULL when they are whole and quantization tables are in them or in the level's
 * JPEGTables; sets *incomplete (and returns NULL) when the scan lies beyond `available`.
 */
static const char *tiler_tiff_jpeg_head_problem(const unsigned char *data, size_t available, size_t length, int tables, int *incomplete) {
    size_t at = 2;
    int quantization = tables;
    while (at + 4 <= length) {
        if (at + 4 > available) {
            *incomplete = 1;
            return NULL;
        }
        if (data[at] != 0xFF) return "has damaged JPEG marker segments";
        unsigned char marker = data[at + 1];
        if (marker == 0xFF) {
            at += 1; /* fill byte */
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            at += 2;
            continue;
        }
        size_t segment = (size_t)data[at + 2] << 8 | data[at + 3];
        if (segment < 2 || at + 2 + segment > length) return "has damaged JPEG marker segments";
        if (marker == 0xDB) quantization = 1;
        if (marker == 0xDA) return quantization ? NULL : "is an abbreviated JPEG stream but the level has no JPEGTables";
        if (marker == 0xD9) break;
        at += 2 + segment;
    }
    return "has no JPEG scan";
}

/* pread of exactly `count` bytes at `offset`; 0, or an error code with message. */
static int tiler_tiff_read_exact(const tiler_tiff_pyramid *p, unsigned char *dst, size_t count, uint64_t offset, char *message,
                                 size_t capacity) {
    size_t done = 0;
    while (done < count) {
        ssize_t n = pread(p->fd, dst + done, count - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return tiler_tiff_say(message, capacity, "reading a tile failed: %s", strerror(errno)), TILER_TIFF_ERR_IO;
        if (n == 0) return tiler_tiff_say(message, capacity, "the file ends inside a tile: it changed since it was opened"), TILER_TIFF_ERR_TRUNCATED;
        done += (size_t)n;
    }
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_jpeg_prefix(const tiler_tiff_pyramid *p, int level, unsigned char *dst, size_t capacity, size_t *length) {
    if (level < 0 || level >= p->level_count) return TILER_TIFF_ERR_ARGUMENT;
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    size_t need = 2 + (L->info.jpeg_rgb ? sizeof tiler_tiff_adobe_rgb : 0) + (L->tables != NULL ? L->tables_length - 4 : 0);
    *length = need;
    if (capacity < need) return TILER_TIFF_ERR_ARGUMENT;
    size_t at = 2;
    dst[0] = 0xFF;
    dst[1] = 0xD8;
    if (L->info.jpeg_rgb) {
        memcpy(dst + at, tiler_tiff_adobe_rgb, sizeof tiler_tiff_adobe_rgb);
        at += sizeof tiler_tiff_adobe_rgb;
    }
    if (L->tables != NULL) {
        memcpy(dst + at, L->tables + 2, L->tables_length - 4); /* without SOI and EOI */
        at += L->tables_length - 4;
    }
    *length = at;
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_jpeg_region(const tiler_tiff_pyramid *p, int level, int column, int row, uint64_t *offset, uint64_t *length,
                                   char *message, size_t capacity) {
    size_t bound = 0;
    int code = tiler_tiff_pyramid_jpeg_bound(p, level, column, row, &bound, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    uint32_t index = (uint32_t)row * L->info.columns + (uint32_t)column;
    uint64_t start = L->offsets[index];
    size_t count = (size_t)L->counts[index];
    /* Checked before in this opening of the file (whose size and time every send compares): not read again. That
     * check was two preads, 6 % of a server's time sending random tiles of a TIFF beyond its cache (perf). */
    uint64_t bit = (uint64_t)1 << (index % 64);
    if (atomic_load_explicit(&L->checked[index / 64], memory_order_relaxed) & bit) {
        *offset = start + 2;
        *length = count - 2;
        return TILER_TIFF_OK;
    }
    /* The head (markers up to the scan) and the tail (EOI): what jpeg_tile checks, without reading the scan. */
    unsigned char head[2048], tail[64];
    size_t head_count = count < sizeof head ? count : sizeof head;
    size_t tail_count = count < sizeof tail ? count : sizeof tail;
    code = tiler_tiff_read_exact(p, head, head_count, start, message, capacity);
    if (code == TILER_TIFF_OK) code = tiler_tiff_read_exact(p, tail, tail_count, start + count - tail_count, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    size_t end = tail_count; /* the tail up to its EOI, zero padding left out */
    while (end > 0 && tail[end - 1] == 0) end--;
    const char *problem = NULL;
    int incomplete = end < 2; /* all padding as far as the tail goes: look at the whole tile */
    if (head_count < 4 || head[0] != 0xFF || head[1] != 0xD8) {
        problem = "is not JPEG data (no SOI marker)";
    } else if (!incomplete && (tail[end - 2] != 0xFF || tail[end - 1] != 0xD9)) {
        problem = "does not end with an EOI marker (cut short?)";
    } else if (!incomplete) {
        problem = tiler_tiff_jpeg_head_problem(head, head_count, count - (tail_count - end), L->tables != NULL, &incomplete);
    }
    if (problem == NULL && incomplete) {
        unsigned char *data = NULL;
        size_t whole = 0;
        code = tiler_tiff_pyramid_read_stored_nowait(p, level, column, row, 0, &data, &whole, message, capacity);
        if (code != TILER_TIFF_OK) return code;
        problem = tiler_tiff_jpeg_problem(data, whole, L->tables != NULL);
        free(data);
    }
    if (problem != NULL) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d %s", column, row, level, problem);
        return TILER_TIFF_ERR_CORRUPT;
    }
    atomic_fetch_or_explicit(&L->checked[index / 64], bit, memory_order_relaxed);
    *offset = start + 2; /* after its SOI: the prefix brings one */
    *length = count - 2;
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_jpeg_tile(const tiler_tiff_pyramid *p, int level, int column, int row, unsigned char *dst, size_t capacity,
                                 size_t *length, char *message, size_t capacity_message) {
    return tiler_tiff_pyramid_jpeg_tile_nowait(p, level, column, row, 0, dst, capacity, length, message, capacity_message);
}

int tiler_tiff_pyramid_jpeg_tile_nowait(const tiler_tiff_pyramid *p, int level, int column, int row, int nowait, unsigned char *dst,
                                        size_t capacity, size_t *length, char *message, size_t capacity_message) {
    size_t bound = 0, count = 0;
    unsigned char *data = NULL;
    int code = tiler_tiff_pyramid_jpeg_bound(p, level, column, row, &bound, message, capacity_message);
    if (code == TILER_TIFF_OK && capacity < bound) {
        tiler_tiff_say(message, capacity_message, "a buffer of %zu bytes is too small for %zu", capacity, bound);
        code = TILER_TIFF_ERR_ARGUMENT;
    }
    if (code == TILER_TIFF_OK) code = tiler_tiff_pyramid_read_stored_nowait(p, level, column, row, nowait, &data, &count, message, capacity_message);
    if (code != TILER_TIFF_OK) return code;
    const char *problem = tiler_tiff_jpeg_problem(data, count, p->levels[level].tables != NULL);
    if (problem != NULL) {
        tiler_tiff_say(message, capacity_message, "tile (%d, %d) of level %d %s", column, row, level, problem);
        free(data);
        return TILER_TIFF_ERR_CORRUPT;
    }
    size_t at = 0; /* the bound checked above makes room for the prefix and the tile */
    (void)tiler_tiff_pyramid_jpeg_prefix(p, level, dst, capacity, &at);
    memcpy(dst + at, data + 2, count - 2);
    *length = at + count - 2;
    free(data);
    return TILER_TIFF_OK;
}
