/*
 * WebP tiles through libwebp's advanced encoding API (WebPConfig + WebPPicture + a memory writer reused from
 * tile to tile) and its simple decoding API. libwebp never longjmps or prints; errors are return codes.
 */
#include "CWebP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>

struct tiler_webp_encoder {
    WebPConfig config;
    WebPMemoryWriter writer;
    unsigned char *scratch; /* gray expanded to RGB(A) */
    size_t scratch_size;
    char message[256];
};

tiler_webp_encoder *tiler_webp_encoder_create(int quality, int lossless, int method) {
    if (quality < 0 || quality > 100 || method < 0 || method > 6) return NULL;
    tiler_webp_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    if (!WebPConfigInit(&e->config)) {
        free(e);
        return NULL;
    }
    e->config.quality = (float)quality;
    e->config.lossless = lossless ? 1 : 0;
    e->config.method = method;
    e->config.alpha_quality = 100;
    if (!WebPValidateConfig(&e->config)) {
        free(e);
        return NULL;
    }
    WebPMemoryWriterInit(&e->writer);
    return e;
}

static const char *tiler_webp_error_name(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory for the bitstream";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimension (WebP sides are 1-16383 pixels)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 overflow";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "file too big";
    default: return "encoding failed";
    }
}

/* Gray or gray+alpha rows as RGB or RGBA in e->scratch; returns the new stride, or 0 if memory runs out. */
static size_t tiler_webp_expand(tiler_webp_encoder *e, const unsigned char *base, uint32_t width, uint32_t height, size_t stride,
                                int channels) {
    int out = channels == 1 ? 3 : 4;
    size_t row = (size_t)width * (size_t)out;
    if (e->scratch_size < row * height) {
        free(e->scratch);
        e->scratch = malloc(row * height);
        e->scratch_size = e->scratch != NULL ? row * height : 0;
        if (e->scratch == NULL) return 0;
    }
    for (uint32_t y = 0; y < height; y++) {
        const unsigned char *src = base + (size_t)y * stride;
        unsigned char *dst = e->scratch + (size_t)y * row;
        for (uint32_t x = 0; x < width; x++) {
            unsigned char g = src[(size_t)x * (size_t)channels];
            dst[0] = dst[1] = dst[2] = g;
            if (out == 4) dst[3] = src[(size_t)x * 2 + 1];
            dst += out;
        }
    }
    return row;
}

int tiler_webp_encode(tiler_webp_encoder *e, const unsigned char *base, uint32_t width, uint32_t height, size_t stride,
                      int channels, const unsigned char **out, size_t *out_length) {
    e->message[0] = 0;
    if (channels < 1 || channels > 4 || width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        snprintf(e->message, sizeof e->message, "cannot encode %ux%u pixels of %d channels as WebP", width, height, channels);
        return TILER_WEBP_ERR_ARGUMENT;
    }
    if (channels <= 2) {
        stride = tiler_webp_expand(e, base, width, height, stride, channels);
        if (stride == 0) {
            snprintf(e->message, sizeof e->message, "out of memory");
            return TILER_WEBP_ERR_NOMEM;
        }
        base = e->scratch;
        channels = channels == 1 ? 3 : 4;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        snprintf(e->message, sizeof e->message, "libwebp version mismatch");
        return TILER_WEBP_ERR_ARGUMENT;
    }
    picture.width = (int)width;
    picture.height = (int)height;
    picture.use_argb = e->config.lossless;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, base, (int)stride) : WebPPictureImportRGB(&picture, base, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        snprintf(e->message, sizeof e->message, "out of memory importing the pixels");
        return TILER_WEBP_ERR_NOMEM;
    }
    WebPMemoryWriterClear(&e->writer);
    WebPMemoryWriterInit(&e->writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &e->writer;
    int ok = WebPEncode(&e->config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        snprintf(e->message, sizeof e->message, "%s", tiler_webp_error_name(code));
        return code == VP8_ENC_ERROR_OUT_OF_MEMORY || code == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY ? TILER_WEBP_ERR_NOMEM
                                                                                                    : TILER_WEBP_ERR_ARGUMENT;
    }
    *out = e->writer.mem;
    *out_length = e->writer.size;
    return TILER_WEBP_OK;
}

const char *tiler_webp_encoder_message(const tiler_webp_encoder *e) { return e->message; }

void tiler_webp_encoder_destroy(tiler_webp_encoder *e) {
    if (e == NULL) return;
    WebPMemoryWriterClear(&e->writer);
    free(e->scratch);
    free(e);
}

int tiler_webp_get_info(const unsigned char *data, size_t length, tiler_webp_info *info) {
    WebPBitstreamFeatures features;
    memset(info, 0, sizeof *info);
    if (WebPGetFeatures(data, length, &features) != VP8_STATUS_OK) return TILER_WEBP_ERR_CORRUPT;
    info->width = features.width;
    info->height = features.height;
    info->has_alpha = features.has_alpha;
    info->lossless = features.format == 2 ? 1 : (features.format == 1 ? 0 : -1);
    return TILER_WEBP_OK;
}

int tiler_webp_decode(const unsigned char *data, size_t length, unsigned char *dst, size_t stride, int channels) {
    int width = 0, height = 0;
    if (!WebPGetInfo(data, length, &width, &height) || height <= 0) return TILER_WEBP_ERR_CORRUPT;
    size_t size = stride * (size_t)height;
    uint8_t *result = channels == 4 ? WebPDecodeRGBAInto(data, length, dst, size, (int)stride)
                                    : WebPDecodeRGBInto(data, length, dst, size, (int)stride);
    return result != NULL ? TILER_WEBP_OK : TILER_WEBP_ERR_CORRUPT;
}
