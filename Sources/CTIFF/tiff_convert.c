/*
 * One decoded row (samples as libtiff delivers them) to 8-bit gray/RGB(+alpha). The common case, 8-bit
 * contiguous gray/RGB/RGBA with nothing to undo, is a memcpy; everything else goes sample by sample.
 */
#include "tiff_reader_internal.h"

#include <string.h>

/* libpng's png_set_scale_16 rounding, so a 16-bit TIFF and the same 16-bit PNG give the same 8-bit pixels. */
static inline unsigned tiler_tiff_scale16(unsigned value) {
    int high = (int)(value >> 8);
    int low = (int)(value & 0xFF);
    return (unsigned)(high + (((low - high + 128) * 65535) >> 24));
}

static inline unsigned tiler_tiff_sample(const tiler_tiff_reader *r, const unsigned char *const *planes, uint32_t x, int s) {
    const unsigned char *row;
    size_t index;
    if (r->planar == PLANARCONFIG_SEPARATE) {
        row = planes[s];
        index = x;
    } else {
        row = planes[0];
        index = (size_t)x * (size_t)r->spp + (size_t)s;
    }
    switch (r->bps) {
    case 8: return row[index];
    case 16: return ((const uint16_t *)(const void *)row)[index];
    case 1: return (row[index >> 3] >> (7 - (index & 7))) & 1;
    case 2: return (row[index >> 2] >> (6 - 2 * (index & 3))) & 3;
    default: return (row[index >> 1] >> (4 - 4 * (index & 1))) & 15;
    }
}

static inline unsigned tiler_tiff_to8(const tiler_tiff_reader *r, unsigned value) {
    switch (r->bps) {
    case 8: return value;
    case 16: return tiler_tiff_scale16(value);
    default: return value * 255 / ((1u << r->bps) - 1);
    }
}

/* Undoes premultiplication at full precision: v·max/a, rounded, clamped. */
static inline unsigned tiler_tiff_unpremultiply(unsigned value, unsigned alpha, unsigned max) {
    if (alpha == 0) return 0;
    unsigned long long v = ((unsigned long long)value * max + alpha / 2) / alpha;
    return v > max ? max : (unsigned)v;
}

int tiler_tiff_is_plain(const tiler_tiff_reader *r) {
    return r->bps == 8 && r->planar != PLANARCONFIG_SEPARATE && !r->white_is_zero && r->alpha != TILER_TIFF_ALPHA_ASSOCIATED &&
           (r->kind == TILER_KIND_GRAY || r->kind == TILER_KIND_RGB || (r->kind == TILER_KIND_CMYK && r->keep_source)) &&
           r->spp == r->out_samples;
}

/* keep_source: the colour samples in the source's model, 16-bit as big-endian pairs, then alpha. */
static void tiler_tiff_convert_source_row(const tiler_tiff_reader *r, const unsigned char *const *planes, unsigned char *out) {
    unsigned max = (1u << r->bps) - 1;
    int has_alpha = r->alpha != TILER_TIFF_ALPHA_NONE;
    int colours = r->kind == TILER_KIND_CMYK ? 4 : (r->kind == TILER_KIND_GRAY ? 1 : 3);
    for (uint32_t x = 0; x < r->width; x++) {
        unsigned alpha = has_alpha ? tiler_tiff_sample(r, planes, x, r->alpha_sample) : max;
        unsigned v[5] = {0, 0, 0, 0, 0};
        if (r->kind == TILER_KIND_PALETTE) {
            unsigned index = tiler_tiff_sample(r, planes, x, 0);
            for (int c = 0; c < 3; c++) {
                unsigned entry = r->colormap[c][index];
                v[c] = r->colormap_8bit ? entry : tiler_tiff_scale16(entry);
            }
        } else {
            for (int c = 0; c < colours; c++) {
                v[c] = tiler_tiff_sample(r, planes, x, c);
                if (r->alpha == TILER_TIFF_ALPHA_ASSOCIATED) v[c] = tiler_tiff_unpremultiply(v[c], alpha, max);
                if (r->white_is_zero) v[c] = max - v[c];
                if (r->out_bytes == 1) v[c] = tiler_tiff_to8(r, v[c]);
            }
        }
        if (has_alpha) v[colours] = r->out_bytes == 1 ? tiler_tiff_to8(r, alpha) : alpha;
        for (int c = 0; c < colours + has_alpha; c++) {
            if (r->out_bytes == 2) *out++ = (unsigned char)(v[c] >> 8);
            *out++ = (unsigned char)(v[c] & 0xFF);
        }
    }
}

void tiler_tiff_convert_row(const tiler_tiff_reader *r, const unsigned char *const *planes, unsigned char *out) {
    if (tiler_tiff_is_plain(r)) {
        memcpy(out, planes[0], (size_t)r->width * (size_t)r->spp);
        return;
    }
    if (r->keep_source) {
        tiler_tiff_convert_source_row(r, planes, out);
        return;
    }
    unsigned max = (1u << r->bps) - 1;
    int has_alpha = r->alpha != TILER_TIFF_ALPHA_NONE;
    int associated = r->alpha == TILER_TIFF_ALPHA_ASSOCIATED;
    for (uint32_t x = 0; x < r->width; x++) {
        unsigned alpha = has_alpha ? tiler_tiff_sample(r, planes, x, r->alpha_sample) : max;
        unsigned v[4] = {0, 0, 0, 0};
        int colours = r->kind == TILER_KIND_CMYK ? 4 : (r->kind == TILER_KIND_RGB ? 3 : 1);
        for (int c = 0; c < colours; c++) {
            v[c] = tiler_tiff_sample(r, planes, x, c);
            if (associated) v[c] = tiler_tiff_unpremultiply(v[c], alpha, max);
        }
        switch (r->kind) {
        case TILER_KIND_GRAY:
            *out++ = (unsigned char)tiler_tiff_to8(r, r->white_is_zero ? max - v[0] : v[0]);
            break;
        case TILER_KIND_RGB:
            for (int c = 0; c < 3; c++) *out++ = (unsigned char)tiler_tiff_to8(r, v[c]);
            break;
        case TILER_KIND_PALETTE:
            for (int c = 0; c < 3; c++) {
                unsigned entry = r->colormap[c][v[0]];
                *out++ = (unsigned char)(r->colormap_8bit ? entry : tiler_tiff_scale16(entry));
            }
            break;
        case TILER_KIND_CMYK: {
            unsigned k = 255 - tiler_tiff_to8(r, v[3]);
            for (int c = 0; c < 3; c++) *out++ = (unsigned char)(((255 - tiler_tiff_to8(r, v[c])) * k + 127) / 255);
            break;
        }
        }
        if (has_alpha) *out++ = (unsigned char)tiler_tiff_to8(r, alpha);
    }
}

void tiler_tiff_convert_rgba_row(const tiler_tiff_reader *r, const uint32_t *pixels, unsigned char *out) {
    for (uint32_t x = 0; x < r->width; x++) {
        uint32_t p = pixels[x];
        unsigned a = TIFFGetA(p);
        unsigned rgb[3] = {TIFFGetR(p), TIFFGetG(p), TIFFGetB(p)};
        for (int c = 0; c < 3; c++) {
            *out++ = (unsigned char)(r->alpha != TILER_TIFF_ALPHA_NONE ? tiler_tiff_unpremultiply(rgb[c], a, 255) : rgb[c]);
        }
        if (r->alpha != TILER_TIFF_ALPHA_NONE) *out++ = (unsigned char)a;
    }
}
