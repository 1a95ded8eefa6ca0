/*
 * Decoding bands (one scanline, one strip of every plane, or one row of tiles) and converting their rows to
 * 8-bit gray/RGB(+alpha). A band is planes × band_rows rows of plane_row_bytes, samples as libtiff decodes
 * them (packed at 1/2/4 bits, native-order 16-bit).
 */
#include "tiff_reader_internal.h"

#include <stdlib.h>
#include <string.h>

static int tiler_tiff_planes(const tiler_tiff_reader *r) { return r->planar == PLANARCONFIG_SEPARATE ? r->spp : 1; }

/* Decides the band's shape and opens the worker handles, once, before the first rows; allocates no band. */
static int tiler_tiff_plan(tiler_tiff_reader *r) {
    if (r->planned) return r->code;
    r->planned = 1;
    size_t rows = r->band_capacity_rows;
    if (r->path == TILER_TIFF_PATH_RGBA) {
        r->raster = malloc((size_t)r->width * rows * 4);
        if (r->raster == NULL) return tiler_tiff_fail(r, TILER_TIFF_ERR_NOMEM, "out of memory for a band of %zu rows", rows), r->code;
        return TILER_TIFF_OK;
    }
    int samples = r->planar == PLANARCONFIG_SEPARATE ? 1 : r->spp;
    r->plane_row_bytes = ((size_t)r->width * (size_t)samples * (size_t)r->bps + 7) / 8;
    if (r->path == TILER_TIFF_PATH_SCANLINES) {
        size_t scanline = (size_t)TIFFScanlineSize64(r->tif);
        if (scanline > r->plane_row_bytes) r->plane_row_bytes = scanline;
    }
    if (r->path == TILER_TIFF_PATH_STRIPS) {
        size_t strip = (size_t)TIFFStripSize64(r->tif);
        if (strip > r->plane_row_bytes * rows) r->plane_row_bytes = (strip + rows - 1) / rows;
    }
    if (r->path == TILER_TIFF_PATH_TILES || r->path == TILER_TIFF_PATH_SCANLINES) tiler_tiff_open_workers(r);
    if (r->path == TILER_TIFF_PATH_SCANLINES && r->worker_count > 0) {
        /* Whole strips, one per thread: worth it only while the band stays small. */
        size_t strip = (size_t)TIFFStripSize64(r->tif);
        size_t row = r->plane_row_bytes > (strip + r->rows_per_strip - 1) / r->rows_per_strip ? r->plane_row_bytes
                                                                                                : (strip + r->rows_per_strip - 1) / r->rows_per_strip;
        size_t total = row * r->rows_per_strip * (size_t)(r->worker_count + 1);
        if (total > ((size_t)256 << 20)) {
            tiler_tiff_close_workers(r);
        } else {
            r->plane_row_bytes = row;
            r->band_capacity_rows = r->rows_per_strip * (uint32_t)(r->worker_count + 1);
        }
    }
    if (r->path == TILER_TIFF_PATH_TILES) {
        tmsize_t size = TIFFTileSize(r->tif);
        r->tile = size > 0 ? malloc((size_t)size) : NULL;
        if (r->tile == NULL) return tiler_tiff_fail(r, TILER_TIFF_ERR_NOMEM, "out of memory for one tile"), r->code;
    }
    return TILER_TIFF_OK;
}

static int tiler_tiff_allocate_band(tiler_tiff_reader *r) {
    if (r->band != NULL || r->path == TILER_TIFF_PATH_RGBA) return TILER_TIFF_OK;
    size_t rows = r->band_capacity_rows;
    r->band = malloc(r->plane_row_bytes * rows * (size_t)tiler_tiff_planes(r));
    if (r->band == NULL) return tiler_tiff_fail(r, TILER_TIFF_ERR_NOMEM, "out of memory for a band of %zu rows", rows), r->code;
    return TILER_TIFF_OK;
}

/* The rows of a band that can be decoded straight into memory `stride` bytes apart, or 0 when a band must go
   through the band buffer (samples to convert, separate planes, libtiff's RGBA interface, or whole strips that
   need rows packed closer than `stride`). */
static uint32_t tiler_tiff_direct_capacity(const tiler_tiff_reader *r, size_t stride) {
    if (!tiler_tiff_is_plain(r) || r->plane_row_bytes != (size_t)r->width * (size_t)r->spp || stride < r->plane_row_bytes) return 0;
    switch (r->path) {
    case TILER_TIFF_PATH_TILES: return r->band_capacity_rows;
    case TILER_TIFF_PATH_SCANLINES: return r->worker_count == 0 || stride == r->plane_row_bytes ? r->band_capacity_rows : 0;
    default: return 0;
    }
}

uint32_t tiler_tiff_reader_direct_rows(tiler_tiff_reader *r, size_t stride) {
    if (r->code != TILER_TIFF_OK || !r->header_done || r->tif == NULL || tiler_tiff_plan(r) != TILER_TIFF_OK) return 0;
    return tiler_tiff_direct_capacity(r, stride);
}

/* After a successful libtiff call: in strict mode a libjpeg damage warning is an error. */
static int tiler_tiff_check_damage(tiler_tiff_reader *r) {
    if (r->damage[0] == 0) return TILER_TIFF_OK;
    tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "%s", r->damage);
    return r->code;
}

static int tiler_tiff_load_tiles(tiler_tiff_reader *r, uint32_t top) {
    int planes = tiler_tiff_planes(r);
    tmsize_t tile_size = TIFFTileSize(r->tif);
    size_t tile_row = (size_t)TIFFTileRowSize64(r->tif);
    int samples = r->planar == PLANARCONFIG_SEPARATE ? 1 : r->spp;
    uint32_t rows = r->height - top < r->tile_height ? r->height - top : r->tile_height;
    for (int plane = 0; plane < planes; plane++) {
        for (uint32_t x = 0; x < r->width; x += r->tile_width) {
            uint32_t index = TIFFComputeTile(r->tif, x, top, 0, (uint16_t)plane);
            if (TIFFReadEncodedTile(r->tif, index, r->tile, tile_size) < 0) {
                return tiler_tiff_library_failure(r, "cannot decode a tile");
            }
            size_t offset = (size_t)x * (size_t)samples * (size_t)r->bps / 8;
            size_t length = r->plane_row_bytes - offset < tile_row ? r->plane_row_bytes - offset : tile_row;
            for (uint32_t y = 0; y < rows; y++) {
                unsigned char *dst = r->target + ((size_t)plane * r->band_capacity_rows + y) * r->target_stride + offset;
                memcpy(dst, r->tile + (size_t)y * tile_row, length);
            }
        }
    }
    r->band_start = top;
    r->band_rows = rows;
    return TILER_TIFF_OK;
}

static int tiler_tiff_load_strips(tiler_tiff_reader *r, uint32_t top) {
    uint32_t rows = r->height - top < r->rows_per_strip ? r->height - top : r->rows_per_strip;
    size_t plane_bytes = r->plane_row_bytes * r->band_capacity_rows;
    for (int plane = 0; plane < r->spp; plane++) {
        uint32_t strip = TIFFComputeStrip(r->tif, top, (uint16_t)plane);
        if (TIFFReadEncodedStrip(r->tif, strip, r->band + (size_t)plane * plane_bytes, (tmsize_t)plane_bytes) < 0) {
            return tiler_tiff_library_failure(r, "cannot decode a strip");
        }
    }
    r->band_start = top;
    r->band_rows = rows;
    return TILER_TIFF_OK;
}

static int tiler_tiff_load_rgba(tiler_tiff_reader *r, uint32_t top) {
    uint32_t rows = r->height - top < r->band_capacity_rows ? r->height - top : r->band_capacity_rows;
    r->rgba.row_offset = (int)top;
    r->rgba.col_offset = 0;
    if (!TIFFRGBAImageGet(&r->rgba, r->raster, r->width, rows)) return tiler_tiff_library_failure(r, "cannot decode the image");
    r->band_start = top;
    r->band_rows = rows;
    return TILER_TIFF_OK;
}

/* Loads the band holding row `row`. */
static int tiler_tiff_load(tiler_tiff_reader *r, uint32_t row) {
    int status;
    switch (r->path) {
    case TILER_TIFF_PATH_SCANLINES:
        if (r->worker_count > 0) {
            status = tiler_tiff_load_parallel(r, row - row % r->band_capacity_rows);
            break;
        }
        if (TIFFReadScanline(r->tif, r->target, row, 0) < 0) return tiler_tiff_library_failure(r, "cannot decode a scanline");
        r->band_start = row;
        r->band_rows = 1;
        status = TILER_TIFF_OK;
        break;
    case TILER_TIFF_PATH_STRIPS: status = tiler_tiff_load_strips(r, row - row % r->rows_per_strip); break;
    case TILER_TIFF_PATH_TILES:
        status = r->worker_count > 0 ? tiler_tiff_load_parallel(r, row - row % r->tile_height) : tiler_tiff_load_tiles(r, row - row % r->tile_height);
        break;
    default: status = tiler_tiff_load_rgba(r, row - row % r->band_capacity_rows); break;
    }
    return status == TILER_TIFF_OK ? tiler_tiff_check_damage(r) : status;
}

void tiler_tiff_convert_row(const tiler_tiff_reader *r, const unsigned char *const *planes, unsigned char *out);
void tiler_tiff_convert_rgba_row(const tiler_tiff_reader *r, const uint32_t *pixels, unsigned char *out);

static void tiler_tiff_emit(tiler_tiff_reader *r, uint32_t row, unsigned char *out) {
    uint32_t y = row - r->band_start;
    if (r->path == TILER_TIFF_PATH_RGBA) {
        tiler_tiff_convert_rgba_row(r, r->raster + (size_t)y * r->width, out);
        return;
    }
    const unsigned char *planes[16];
    int count = tiler_tiff_planes(r) < 16 ? tiler_tiff_planes(r) : 16;
    for (int p = 0; p < count; p++) planes[p] = r->band + ((size_t)p * r->band_capacity_rows + y) * r->plane_row_bytes;
    tiler_tiff_convert_row(r, planes, out);
}

int tiler_tiff_reader_read_rows(tiler_tiff_reader *r, unsigned char *dst, size_t stride, uint32_t count, uint32_t *rows_done) {
    *rows_done = 0;
    if (r->code != TILER_TIFF_OK) return r->code;
    if (!r->header_done || r->tif == NULL) return tiler_tiff_fail(r, TILER_TIFF_ERR_ARGUMENT, "header not read"), r->code;
    if (tiler_tiff_plan(r) != TILER_TIFF_OK) return r->code;
    uint32_t capacity = tiler_tiff_direct_capacity(r, stride);
    while (*rows_done < count && r->next_row < r->height) {
        uint32_t row = r->next_row;
        if (r->band_rows == 0 || row < r->band_start || row >= r->band_start + r->band_rows) {
            /* A whole band the caller has room for, plain samples: decoded straight into its rows, no band copy. */
            uint32_t rows = capacity > 0 && r->height - row < capacity ? r->height - row : capacity;
            int direct = capacity > 0 && row % capacity == 0 && count - *rows_done >= rows;
            if (!direct && tiler_tiff_allocate_band(r) != TILER_TIFF_OK) return r->code;
            r->target = direct ? dst + (size_t)*rows_done * stride : r->band;
            r->target_stride = direct ? stride : r->plane_row_bytes;
            int status = tiler_tiff_load(r, row);
            if (status == TILER_TIFF_OK && direct) {
                r->band_rows = 0; /* the band buffer holds nothing now */
                r->next_row += rows;
                *rows_done += rows;
                continue;
            }
            if (status != TILER_TIFF_OK) {
                if (!r->lenient || r->code == TILER_TIFF_ERR_NOMEM) {
                    r->error_row = row;
                    return r->code;
                }
                /* Lenient: this band's rows become zeros and decoding goes on with the next one. */
                tiler_tiff_warn(r, "%s (at row %u of %u); the rows it holds are left black", r->message, row, r->height);
                r->code = TILER_TIFF_OK;
                r->message[0] = 0;
                r->damage[0] = 0;
                uint32_t band = r->band_capacity_rows;
                uint32_t end = row - row % band + band;
                if (end > r->height) end = r->height;
                for (; r->next_row < end && *rows_done < count; r->next_row++, (*rows_done)++) {
                    memset(dst + (size_t)*rows_done * stride, 0, (size_t)r->width * (size_t)r->out_samples * (size_t)r->out_bytes);
                }
                continue;
            }
        }
        tiler_tiff_emit(r, row, dst + (size_t)*rows_done * stride);
        r->next_row += 1;
        *rows_done += 1;
    }
    return TILER_TIFF_OK;
}
