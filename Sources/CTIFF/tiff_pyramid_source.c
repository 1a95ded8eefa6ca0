/*
 * Serving the tiles of a pyramid whose bytes the caller reads (an object in a store, tiler_tiff_pyramid_open_source):
 * where a tile's stored bytes lie, and whether the bytes the caller read there are a JPEG tile to pass through. The
 * checks are those the file's own reads make (tiff_pyramid_tiles.c), so a tile is refused for the same damage wherever
 * its bytes come from.
 */
#include "tiff_pyramid_internal.h"

int tiler_tiff_pyramid_tile_extent(const tiler_tiff_pyramid *p, int level, int column, int row, uint64_t *offset, uint64_t *length,
                                   char *message, size_t capacity) {
    uint32_t index = 0;
    int code = tiler_tiff_check_extent(p, level, column, row, &index, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    *offset = p->levels[level].offsets[index];
    *length = p->levels[level].counts[index];
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_jpeg_check(const tiler_tiff_pyramid *p, int level, int column, int row, const unsigned char *data, size_t length,
                                  char *message, size_t capacity) {
    size_t bound = 0;
    int code = tiler_tiff_pyramid_jpeg_bound(p, level, column, row, &bound, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    uint64_t expected = L->counts[(uint32_t)row * L->info.columns + (uint32_t)column];
    if (length != expected) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d has %llu stored bytes, not the %zu given", column, row, level,
                       (unsigned long long)expected, length);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    const char *problem = tiler_tiff_jpeg_problem(data, length, L->tables != NULL);
    if (problem != NULL) {
        tiler_tiff_say(message, capacity, "tile (%d, %d) of level %d %s", column, row, level, problem);
        return TILER_TIFF_ERR_CORRUPT;
    }
    return TILER_TIFF_OK;
}
