#include "CZlib.h"

#include <string.h>
#include <zlib.h>

size_t tiler_deflate_tile_bound(size_t width, size_t height, int channels) {
    return (size_t)compressBound((uLong)(width * height * (size_t)channels));
}

size_t tiler_deflate_tile(const unsigned char *base, size_t width, size_t height, size_t stride, int channels, int level,
                          unsigned char *scratch, unsigned char *out, size_t capacity) {
    size_t row_bytes = width * (size_t)channels;
    for (size_t y = 0; y < height; y++) {
        const unsigned char *src = base + y * stride;
        unsigned char *dst = scratch + y * row_bytes;
        /* TIFF Predictor 2 on 8-bit samples: each sample less the same sample of the pixel to its left, mod 256. */
        memcpy(dst, src, (size_t)channels);
        for (size_t i = (size_t)channels; i < row_bytes; i++) dst[i] = (unsigned char)(src[i] - src[i - (size_t)channels]);
    }
    uLongf length = (uLongf)capacity;
    if (compress2(out, &length, scratch, (uLong)(row_bytes * height), level) != Z_OK) return 0;
    return (size_t)length;
}
