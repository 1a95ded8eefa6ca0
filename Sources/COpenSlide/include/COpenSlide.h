/*
 * COpenSlide: the only code in Tiler that includes openslide.h (OpenSlide 3.4.1, Debian's libopenslide-dev).
 *
 * Why a shim and not a bare module map: openslide_read_region delivers premultiplied ARGB in native-endian 32-bit
 * words, and every tile needs it as straight 8-bit RGB over the slide's background colour. That loop runs on every
 * pixel of every tile made, so it is C, beside the call. The rest passes OpenSlide's calls through with prefixed
 * names so Swift never sees openslide.h's deprecated declarations.
 *
 * An openslide_t is thread-safe (any number of threads may read regions at once). Once a call fails the handle is
 * in an error state for good: every later call fails and tiler_slide_error says why; close it and open again.
 * Symbols are prefixed tiler_slide_.
 */
#ifndef COPENSLIDE_H
#define COPENSLIDE_H

#include <stddef.h>
#include <stdint.h>

typedef struct _openslide tiler_slide;

/* The vendor OpenSlide recognises in the file at path ("aperio", "mirax", "generic-tiff", …), or NULL. */
const char *tiler_slide_detect_vendor(const char *path);

/* Opens the slide at path. Returns NULL when OpenSlide does not recognise the file; otherwise a handle, which may be
 * in the error state (check tiler_slide_error, then close it). */
tiler_slide *tiler_slide_open(const char *path);

/* Closes a handle (NULL is allowed). */
void tiler_slide_close(tiler_slide *slide);

/* Why the handle is in the error state, or NULL when it is not. */
const char *tiler_slide_error(tiler_slide *slide);

/* Levels: how many (-1 in the error state), each one's size in pixels and its downsample from level 0. */
int32_t tiler_slide_level_count(tiler_slide *slide);
void tiler_slide_level_size(tiler_slide *slide, int32_t level, int64_t *width, int64_t *height);
double tiler_slide_level_downsample(tiler_slide *slide, int32_t level);

/* The property names (a NULL-terminated array OpenSlide owns) and one property's value (or NULL). */
const char *const *tiler_slide_property_names(tiler_slide *slide);
const char *tiler_slide_property_value(tiler_slide *slide, const char *name);

/* The associated images' names (NULL-terminated, OpenSlide's), one's size (-1 × -1 when absent or on error). */
const char *const *tiler_slide_associated_names(tiler_slide *slide);
void tiler_slide_associated_size(tiler_slide *slide, const char *name, int64_t *width, int64_t *height);

/* Reads the region of level `level` whose top left is (x, y) in level-0 pixels, width × height level pixels, into
 * rgb (width × height × 3 bytes): premultiplied ARGB composited over the background (bg_r, bg_g, bg_b), so a
 * transparent pixel (outside a sparse slide's scanned areas) is the background. scratch holds width × height words.
 * Returns 0, or -1 with tiler_slide_error set. */
int tiler_slide_read_rgb(tiler_slide *slide, int32_t level, int64_t x, int64_t y, int32_t width, int32_t height,
                         uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint32_t *scratch, uint8_t *rgb);

/* Reads associated image `name` (width × height from tiler_slide_associated_size) into rgb the same way.
 * Returns 0, or -1 with tiler_slide_error set. */
int tiler_slide_read_associated_rgb(tiler_slide *slide, const char *name, int64_t width, int64_t height,
                                    uint8_t bg_r, uint8_t bg_g, uint8_t bg_b, uint32_t *scratch, uint8_t *rgb);

/* OpenSlide's version string, e.g. "3.4.1". */
const char *tiler_slide_version(void);

#endif
