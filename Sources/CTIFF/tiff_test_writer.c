/*
 * Writes TIFF fixtures for the tests with libtiff itself: every layout, compression, bit depth, colour type
 * and plane configuration the reader claims, classic or BigTIFF, one or more pages. It lives here because
 * only this target may include tiffio.h.
 */
#include "CTIFF.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

typedef struct tiler_tiff_writer_context {
    char *message;
    size_t capacity;
    int failed;
} tiler_tiff_writer_context;

static int tiler_tiff_writer_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    (void)module;
    tiler_tiff_writer_context *c = user;
    if (!c->failed && c->capacity > 0) vsnprintf(c->message, c->capacity, format, ap);
    c->failed = 1;
    return 1;
}

static int tiler_tiff_writer_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    (void)user;
    (void)module;
    (void)format;
    (void)ap;
    return 1;
}

/* Sample s of pixel x in a contiguous packed row. */
static unsigned tiler_tiff_get(const unsigned char *row, size_t index, int bps) {
    switch (bps) {
    case 8: return row[index];
    case 16: return ((const uint16_t *)(const void *)row)[index];
    case 32: return ((const uint32_t *)(const void *)row)[index];
    default: {
        size_t bit = index * (size_t)bps;
        return (row[bit / 8] >> (8 - bps - bit % 8)) & ((1u << bps) - 1);
    }
    }
}

static void tiler_tiff_put(unsigned char *row, size_t index, int bps, unsigned value) {
    switch (bps) {
    case 8: row[index] = (unsigned char)value; break;
    case 16: ((uint16_t *)(void *)row)[index] = (uint16_t)value; break;
    case 32: ((uint32_t *)(void *)row)[index] = (uint32_t)value; break;
    default: {
        size_t bit = index * (size_t)bps;
        row[bit / 8] |= (unsigned char)(value << (8 - bps - bit % 8));
    }
    }
}

/* The pixels of plane `plane` (or all samples when contiguous) for rows y0 ..< y0 + h and columns x0 ..< x0 + w,
   packed into `out` with rows `out_row` bytes apart; past the image the edge repeats, as libvips pads tiles (zeros
   there would bleed into the edge pixels through JPEG's chroma subsampling). */
static void tiler_tiff_cut(const tiler_tiff_test_page *p, int plane, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                           unsigned char *out, size_t out_row) {
    int samples = p->planar == PLANARCONFIG_SEPARATE ? 1 : p->samples_per_pixel;
    memset(out, 0, out_row * h);
    for (uint32_t y = 0; y < h; y++) {
        uint32_t sy = y0 + y < p->height ? y0 + y : p->height - 1;
        const unsigned char *src = p->rows + (size_t)sy * p->row_bytes;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t sx = x0 + x < p->width ? x0 + x : p->width - 1;
            for (int s = 0; s < samples; s++) {
                int source = p->planar == PLANARCONFIG_SEPARATE ? plane : s;
                unsigned v = tiler_tiff_get(src, (size_t)sx * (size_t)p->samples_per_pixel + (size_t)source, p->bits_per_sample);
                tiler_tiff_put(out + (size_t)y * out_row, (size_t)x * (size_t)samples + (size_t)s, p->bits_per_sample, v);
            }
        }
    }
}

static void tiler_tiff_set_fields(TIFF *tif, const tiler_tiff_test_page *p) {
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, p->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, p->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)p->samples_per_pixel);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)p->bits_per_sample);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)p->planar);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)p->compression);
    if (p->compression == COMPRESSION_JPEG && p->jpeg_rgb) {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    } else {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)p->photometric);
    }
    if (p->compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGQUALITY, p->jpeg_quality > 0 ? p->jpeg_quality : 90);
    if (p->predictor > 0) TIFFSetField(tif, TIFFTAG_PREDICTOR, (uint16_t)p->predictor);
    if (p->extra_sample >= 0) {
        uint16_t type = (uint16_t)p->extra_sample;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &type);
    }
    if (p->orientation > 0) TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)p->orientation);
    if (p->sample_format > 0) TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)p->sample_format);
    if (p->subfile_type > 0) TIFFSetField(tif, TIFFTAG_SUBFILETYPE, (uint32_t)p->subfile_type);
    if (p->colormap != NULL) {
        size_t n = (size_t)1 << p->bits_per_sample;
        TIFFSetField(tif, TIFFTAG_COLORMAP, p->colormap, p->colormap + n, p->colormap + 2 * n);
    }
    if (p->icc != NULL) TIFFSetField(tif, TIFFTAG_ICCPROFILE, p->icc_length, p->icc);
    if (p->photometric == PHOTOMETRIC_SEPARATED) TIFFSetField(tif, TIFFTAG_INKSET, INKSET_CMYK);
    if (p->tiled) {
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, p->tile_width);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, p->tile_height);
    } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, p->rows_per_strip > 0 ? p->rows_per_strip : TIFFDefaultStripSize(tif, 0));
    }
}

static int tiler_tiff_write_page(TIFF *tif, const tiler_tiff_test_page *p) {
    tiler_tiff_set_fields(tif, p);
    int planes = p->planar == PLANARCONFIG_SEPARATE ? p->samples_per_pixel : 1;
    if (p->tiled) {
        tmsize_t size = TIFFTileSize(tif);
        size_t row = (size_t)TIFFTileRowSize(tif);
        unsigned char *tile = size > 0 ? malloc((size_t)size) : NULL;
        if (tile == NULL) return 0;
        for (int plane = 0; plane < planes; plane++) {
            for (uint32_t y = 0; y < p->height; y += p->tile_height) {
                for (uint32_t x = 0; x < p->width; x += p->tile_width) {
                    tiler_tiff_cut(p, plane, x, y, p->tile_width, p->tile_height, tile, row);
                    if (TIFFWriteEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, (uint16_t)plane), tile, size) < 0) {
                        free(tile);
                        return 0;
                    }
                }
            }
        }
        free(tile);
    } else {
        uint32_t rps = 0;
        TIFFGetField(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps == 0 || rps > p->height) rps = p->height;
        size_t row = (size_t)TIFFScanlineSize(tif);
        unsigned char *strip = malloc(row * rps);
        if (strip == NULL) return 0;
        for (int plane = 0; plane < planes; plane++) {
            for (uint32_t y = 0; y < p->height; y += rps) {
                uint32_t rows = p->height - y < rps ? p->height - y : rps;
                tiler_tiff_cut(p, plane, 0, y, p->width, rows, strip, row);
                if (TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y, (uint16_t)plane), strip, (tmsize_t)(row * rows)) < 0) {
                    free(strip);
                    return 0;
                }
            }
        }
        free(strip);
    }
    return TIFFWriteDirectory(tif);
}

int tiler_tiff_write_test(const char *path, int big_tiff, const tiler_tiff_test_page *pages, int count, char *message,
                          size_t message_capacity) {
    tiler_tiff_writer_context context = {message, message_capacity, 0};
    if (message_capacity > 0) message[0] = 0;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return TILER_TIFF_ERR_NOMEM;
    TIFFOpenOptionsSetErrorHandlerExtR(options, tiler_tiff_writer_on_error, &context);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tiler_tiff_writer_on_warning, &context);
    TIFF *tif = TIFFOpenExt(path, big_tiff ? "w8" : "w", options);
    TIFFOpenOptionsFree(options);
    if (tif == NULL) {
        if (!context.failed) snprintf(message, message_capacity, "cannot create %s", path);
        return TILER_TIFF_ERR_IO;
    }
    int ok = 1;
    for (int i = 0; i < count && ok; i++) ok = tiler_tiff_write_page(tif, &pages[i]) && !context.failed;
    TIFFClose(tif);
    if (!ok || context.failed) {
        if (message_capacity > 0 && message[0] == 0) snprintf(message, message_capacity, "libtiff could not write the page");
        return TILER_TIFF_ERR_IO;
    }
    return TILER_TIFF_OK;
}
