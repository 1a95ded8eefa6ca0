/*
 * CWebP: the only code in Tiler that includes libwebp's headers.
 *
 * libwebp reports errors by return values (no longjmp, no printing), so this shim is thin: it keeps one
 * WebPConfig and one output buffer per encoder, expands gray to RGB (WebP has no gray mode), and turns
 * libwebp's error codes into a status and a message. Objects are single-threaded. Symbols are prefixed
 * tiler_webp_.
 */
#ifndef CWEBP_H
#define CWEBP_H

#include <stddef.h>
#include <stdint.h>

#define TILER_WEBP_OK 0
#define TILER_WEBP_ERR_CORRUPT 1
#define TILER_WEBP_ERR_NOMEM 3
#define TILER_WEBP_ERR_ARGUMENT 5

typedef struct tiler_webp_encoder tiler_webp_encoder;

/*
 * quality 0–100 (lossy: the usual quality; lossless: effort, 100 = smallest), lossless 0/1, method 0–6
 * (speed/size trade-off, libwebp's default 4). Returns NULL if memory runs out or an argument is out of range.
 */
tiler_webp_encoder *tiler_webp_encoder_create(int quality, int lossless, int method);

/*
 * Encodes 8-bit rows (channels 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA, not premultiplied) at base, `stride`
 * bytes apart. Alpha is kept (lossless alpha plane). On success out and out_length describe the WebP file,
 * valid until the next call on the encoder. Sides up to 16383 pixels (WebP's limit).
 */
int tiler_webp_encode(tiler_webp_encoder *encoder, const unsigned char *base, uint32_t width, uint32_t height, size_t stride,
                      int channels, const unsigned char **out, size_t *out_length);

/* The message of the last error. */
const char *tiler_webp_encoder_message(const tiler_webp_encoder *encoder);

/* Accepts NULL. */
void tiler_webp_encoder_destroy(tiler_webp_encoder *encoder);

/* What a WebP file holds, from its header. */
typedef struct tiler_webp_info {
    int width;
    int height;
    int has_alpha;
    int lossless; /* 1 lossless (VP8L), 0 lossy (VP8), -1 mixed/unknown */
} tiler_webp_info;

/* Reads the header of `length` bytes of WebP. Returns TILER_WEBP_OK or TILER_WEBP_ERR_CORRUPT. */
int tiler_webp_get_info(const unsigned char *data, size_t length, tiler_webp_info *info);

/*
 * Decodes `length` bytes of WebP into `dst` (channels 3 RGB or 4 RGBA, rows `stride` bytes apart, room for
 * height rows). Returns TILER_WEBP_OK or TILER_WEBP_ERR_CORRUPT.
 */
int tiler_webp_decode(const unsigned char *data, size_t length, unsigned char *dst, size_t stride, int channels);

#endif
