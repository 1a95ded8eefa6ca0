#ifndef TILER_CZLIB_H
#define TILER_CZLIB_H

/*
 * Exists so that Swift can call libdeflate and zlib: the CRC-32 every ZIP entry carries (libdeflate's, the fastest
 * here), and the Deflate tiles of a pyramidal TIFF (Predictor 2, zlib-wrapped, as libtiff writes them), which no other
 * shim exports: libpng's and the PNG encoder's use of zlib stays inside CPNG. Prefixed entry points, no state.
 */

#include <stddef.h>
#include <stdint.h>

/* Continues the CRC-32 `crc` (0 to start) over `length` bytes at `bytes`. */
uint32_t tiler_crc32(uint32_t crc, const void *bytes, size_t length);

/* The most bytes tiler_deflate_tile can produce for a tile of `width` × `height` pixels of `channels` samples. */
size_t tiler_deflate_tile_bound(size_t width, size_t height, int channels);

/*
 * Compresses a tile of `width` × `height` pixels of `channels` 8-bit samples (rows `stride` bytes apart at `base`) as
 * a TIFF Deflate tile with horizontal differencing (Predictor 2): the differences go to `scratch` (width × height ×
 * channels bytes), then one zlib stream at zlib `level` (0–9) to `out` (`capacity` bytes, see
 * tiler_deflate_tile_bound). Returns the stream's length, or 0 when zlib fails.
 */
size_t tiler_deflate_tile(const unsigned char *base, size_t width, size_t height, size_t stride, int channels, int level,
                          unsigned char *scratch, unsigned char *out, size_t capacity);

#endif
