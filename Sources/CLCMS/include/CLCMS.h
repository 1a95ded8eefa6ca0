/*
 * CLCMS: the only code in Tiler that includes lcms2.h (Little CMS 2).
 *
 * Converts pixel rows from a source colour space (an embedded ICC profile, or PNG gAMA/cHRM values) to sRGB with
 * the relative colorimetric intent and black-point compensation. Little CMS reports problems through a per-context
 * error handler; here every transform has its own context whose handler records the first message, so nothing is
 * ever printed and the Swift side can turn the message into one line of its own. Nothing here exits, aborts or
 * prints. A transform may convert disjoint rows from several threads at once (tiler_lcms_apply only reads it).
 * Every exported symbol is prefixed tiler_lcms_.
 */
#ifndef CLCMS_H
#define CLCMS_H

#include <stddef.h>
#include <stdint.h>

/* Colour spaces of source samples (and of profiles). */
#define TILER_LCMS_SPACE_OTHER 0
#define TILER_LCMS_SPACE_GRAY 1
#define TILER_LCMS_SPACE_RGB 2
#define TILER_LCMS_SPACE_CMYK 3

/* How the source rows handed to tiler_lcms_apply are laid out. */
typedef struct tiler_lcms_input {
    int space;          /* TILER_LCMS_SPACE_GRAY, _RGB or _CMYK */
    int bytes;          /* bytes per sample: 1, or 2 (16-bit, big-endian as PNG stores it) */
    int alpha;          /* 1: one straight alpha sample follows the colour samples (copied, scaled to 8 bits) */
    int inverted;       /* CMYK only: samples are 255 − ink (Adobe's convention in JPEG) */
} tiler_lcms_input;

typedef struct tiler_lcms_transform tiler_lcms_transform;

/*
 * What a profile says about itself without building a transform: its colour space (TILER_LCMS_SPACE_*) and its
 * description tag (English if present). Returns 0, or -1 with a message when lcms cannot parse the profile.
 */
int tiler_lcms_profile_info(const void *icc, size_t length, int *space, char *description, size_t description_capacity,
                            char *message, size_t message_capacity);

/*
 * A transform from the ICC profile `icc` to sRGB for rows laid out as `input`; gray sources go to gray with the
 * sRGB tone curve (one channel stays one channel). Output rows are 8-bit: gray, gray+alpha, RGB or RGBA.
 * Returns NULL with a one-line message when the profile is malformed, unsupported, or does not match the input.
 */
tiler_lcms_transform *tiler_lcms_create_from_icc(const void *icc, size_t length, const tiler_lcms_input *input,
                                                 char *message, size_t message_capacity);

/*
 * A transform from the colour space PNG's gAMA and cHRM chunks describe: `gamma` is the file gamma (gAMA / 100000,
 * e.g. 0.45455; 0 when absent: sRGB's curve), `chromaticities` is white x,y then red, green, blue x,y (8 values)
 * or NULL (sRGB's primaries). Gray sources use the gamma only.
 */
tiler_lcms_transform *tiler_lcms_create_from_chunks(double gamma, const double *chromaticities,
                                                    const tiler_lcms_input *input, char *message,
                                                    size_t message_capacity);

/* Converts `pixels` pixels from src to dst (8-bit, tiler_lcms_output_channels per pixel). src and dst may not overlap. */
void tiler_lcms_apply(tiler_lcms_transform *transform, const void *src, unsigned char *dst, size_t pixels);

/* Samples per output pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
int tiler_lcms_output_channels(const tiler_lcms_transform *transform);

/* How the rows are converted: "lcms"; "lcms gray table" for 8-bit gray sources (lcms_fast.c); "matrix tables" or
 * "matrix tables (AVX2)" for 8-bit matrix-shaper RGB sources (lcms_matrix.c). */
const char *tiler_lcms_method(const tiler_lcms_transform *transform);

/* Frees the transform. Accepts NULL. */
void tiler_lcms_destroy(tiler_lcms_transform *transform);

/*
 * For the tests: a CMYK output profile whose AToB0 table reproduces the uncalibrated formula (see
 * lcms_test_profile.c). Returns 0 and a buffer to free with tiler_lcms_free, or -1.
 */
int tiler_lcms_test_cmyk_profile(unsigned char **out, size_t *length);

/*
 * For the tests: `pixels` 8-bit RGB pixels converted from the RGB profile `icc` to sRGB by lcms's unoptimised
 * floating-point transform (the fast paths' reference), rounded to 8 bits. Returns 0, or -1 if lcms refused.
 */
int tiler_lcms_test_reference(const void *icc, size_t length, const unsigned char *rgb, unsigned char *out,
                              size_t pixels);

/*
 * lcms's built-in sRGB profile (IEC 61966-2.1 primaries and tone curve, D50-adapted), serialised: what a pyramidal
 * TIFF written by tiler slice records as its colour space. Returns 0 and a buffer to free with tiler_lcms_free, or -1.
 */
int tiler_lcms_srgb_profile(unsigned char **out, size_t *length);

/* Frees a buffer from tiler_lcms_test_cmyk_profile or tiler_lcms_srgb_profile. Accepts NULL. */
void tiler_lcms_free(void *buffer);

#endif
