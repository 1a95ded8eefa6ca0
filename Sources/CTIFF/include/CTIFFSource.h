/*
 * CTIFF's pyramids that are no local file — an object in a store — read through the caller's function (included by
 * CTIFF.h, which has the rest). Opening reads directories through `read`, which serves them from bytes the caller fetched ahead; tiles are
 * never read through it: the caller reads a tile's stored bytes where tile_extent says they lie (one ranged read) and
 * hands them to jpeg_check or decode_tile_from.
 */
#ifndef CTIFF_SOURCE_H
#define CTIFF_SOURCE_H

#include "CTIFF.h"

/*
 * The caller's bytes of one TIFF of `size` bytes. `read` copies the `length` bytes at `offset` to dst and returns how
 * many it copied: `length`, fewer only at the end of the TIFF, or -1 when those bytes are not at hand (not fetched):
 * the open then fails, and the caller, having noted which bytes were wanted, fetches them and opens again. Called on
 * the opening thread, and later on threads decoding tiles (each holding one of the pyramid's handles, which reads its
 * directory again): it must be thread-safe, and `context` must outlive the pyramid.
 */
typedef struct tiler_tiff_source {
    void *context;
    uint64_t size;
    int64_t (*read)(void *context, uint64_t offset, void *dst, size_t length);
} tiler_tiff_source;

/*
 * tiler_tiff_pyramid_open over `source` (copied; its context is not owned) instead of a descriptor: the same levels,
 * checks and errors (a read the source cannot serve fails the open, as libtiff words it: _CORRUPT or _NOT_PYRAMID). The
 * pyramid has no descriptor (-1): jpeg_tile, jpeg_region and decode_tile, which read tiles themselves, fail on it; use
 * tile_extent, then jpeg_check or decode_tile_from on the bytes read there.
 */
int tiler_tiff_pyramid_open_source(const tiler_tiff_source *source, tiler_tiff_pyramid **out, char *message, size_t capacity);

/*
 * Where tile (column, row) of `level`'s stored bytes lie: *length bytes at *offset, checked as every read of them is —
 * a tile that exists, a TileByteCounts entry that is not 0, not absurd for the tile's size and within the TIFF. No read.
 */
int tiler_tiff_pyramid_tile_extent(const tiler_tiff_pyramid *pyramid, int level, int column, int row, uint64_t *offset, uint64_t *length,
                                   char *message, size_t capacity);

/*
 * Whether `data` (`length` bytes: the whole of the tile's extent, read by the caller) is a tile jpeg_tile would hand
 * out: a pass-through level, SOI, whole marker segments up to a scan, EOI. The tile as jpeg_tile gives it is then the
 * level's jpeg_prefix followed by `data` from its third byte. TILER_TIFF_OK, _ARGUMENT or _CORRUPT with message.
 */
int tiler_tiff_pyramid_jpeg_check(const tiler_tiff_pyramid *pyramid, int level, int column, int row, const unsigned char *data,
                                  size_t length, char *message, size_t capacity);

/*
 * decode_tile from the tile's stored bytes the caller read (`data`, exactly the extent's `length` bytes) instead of
 * reading them. Thread-safe as decode_tile.
 */
int tiler_tiff_pyramid_decode_tile_from(tiler_tiff_pyramid *pyramid, int level, int column, int row, const unsigned char *data,
                                        size_t length, unsigned char *dst, size_t capacity, char *message, size_t capacity_message);

#endif
