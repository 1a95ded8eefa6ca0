/*
 * Streaming TIFF reader over libtiff.
 *
 * Why a shim: libtiff's default handlers print to stderr, and its decoding loops are C. Each reader
 * is opened with its own error and warning handlers (TIFFOpenOptions, libtiff 4.5) that collect the
 * first error into r->message; the process-wide handlers print nothing (tiler_tiff_route_stray_messages).
 * Rows come out as 8-bit gray, gray+alpha, RGB or RGBA, top to bottom as stored, by one of four paths
 * (tiler_tiff_header.path): contiguous strips one decoded scanline at a time (memory O(width), whatever RowsPerStrip says),
 * separate planes one strip of every plane at a time, tiled images one row of tiles at a time
 * (tile height × width × samples), and libtiff's RGBA interface for photometrics it alone converts.
 */
#include "CTIFF.h"
#include "tiff_reader_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILER_TIFF_MAX_WARNINGS 100

void tiler_tiff_fail(tiler_tiff_reader *r, int code, const char *format, ...) {
    if (r->code != TILER_TIFF_OK) return;
    r->code = code;
    va_list ap;
    va_start(ap, format);
    vsnprintf(r->message, sizeof r->message, format, ap);
    va_end(ap);
}

static int tiler_tiff_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_reader *r = user;
    if (r == NULL || r->library_error[0] != 0) return 1;
    char text[400];
    vsnprintf(text, sizeof text, format, ap);
    if (module != NULL && module[0] != 0 && strstr(text, module) == NULL) {
        snprintf(r->library_error, sizeof r->library_error, "%s: %s", module, text);
    } else {
        snprintf(r->library_error, sizeof r->library_error, "%s", text);
    }
    return 1;
}

/* Tags libtiff does not know (GeoTIFF's, private ones) are not a problem with the image. */
static int tiler_tiff_is_noise(const char *text) {
    return strstr(text, "Unknown field with tag") != NULL || strstr(text, "unknown field") != NULL ||
           strstr(text, "Invalid TIFF directory; tags are not sorted") != NULL;
}

static int tiler_tiff_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_reader *r = user;
    if (r == NULL) return 1;
    char text[400];
    vsnprintf(text, sizeof text, format, ap);
    if (tiler_tiff_is_noise(text)) return 1;
    /* libjpeg's damage warnings arrive as libtiff warnings; like the JPEG reader, strict mode fails on them. */
    if (module != NULL && strcmp(module, "JPEGLib") == 0 && !r->lenient && r->damage[0] == 0) {
        snprintf(r->damage, sizeof r->damage, "%s", text);
        return 1;
    }
    if (r->warn == NULL) return 1;
    r->warnings += 1;
    if (r->warnings < TILER_TIFF_MAX_WARNINGS) {
        char line[480];
        snprintf(line, sizeof line, "%s%s%s", module != NULL ? module : "", module != NULL ? ": " : "", text);
        r->warn(r->warn_context, line);
    } else if (r->warnings == TILER_TIFF_MAX_WARNINGS) {
        r->warn(r->warn_context, "too many warnings; further warnings suppressed");
    }
    return 1;
}

void tiler_tiff_warn(tiler_tiff_reader *r, const char *format, ...) {
    if (r->warn == NULL) return;
    char line[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    r->warnings += 1;
    if (r->warnings < TILER_TIFF_MAX_WARNINGS) r->warn(r->warn_context, line);
}

tiler_tiff_reader *tiler_tiff_reader_create(int fd, int lenient, tiler_tiff_warning_fn warn, void *warn_context) {
    tiler_tiff_route_stray_messages();
    tiler_tiff_reader *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->lenient = lenient;
    r->warn = warn;
    r->warn_context = warn_context;
    r->error_row = -1;
    r->fd = dup(fd);
    if (r->fd < 0) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_IO, "cannot duplicate the file descriptor: %s", strerror(errno));
        return r;
    }
    if (lseek(r->fd, 0, SEEK_SET) < 0) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_IO, "the file is not seekable (TIFF needs random access)");
        return r;
    }
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        tiler_tiff_reader_destroy(r);
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, tiler_tiff_on_error, r);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tiler_tiff_on_warning, r);
    /* A backstop for libtiff's own buffers (strip offsets, one strip): a damaged count cannot ask for more. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)1 << 30);
    /* "m": read(2), not mmap: a file truncated under us must be an error, not SIGBUS. */
    r->tif = TIFFFdOpenExt(r->fd, "tiff", "rm", options);
    TIFFOpenOptionsFree(options);
    if (r->tif == NULL) {
        /* TIFFFdOpenExt closes nothing on failure. */
        close(r->fd);
        r->fd = -1;
    }
    return r;
}

const char *tiler_tiff_reader_message(const tiler_tiff_reader *r) { return r->message; }

int64_t tiler_tiff_reader_error_row(const tiler_tiff_reader *r) { return r->error_row; }

int tiler_tiff_codec_configured(int compression) {
    return TIFFIsCODECConfigured((uint16_t)compression) ? 1 : 0;
}

void tiler_tiff_reader_destroy(tiler_tiff_reader *r) {
    if (r == NULL) return;
    if (r->rgba_started) TIFFRGBAImageEnd(&r->rgba);
    tiler_tiff_close_workers(r);
    if (r->tif != NULL) {
        TIFFClose(r->tif); /* closes r->fd */
    } else if (r->fd >= 0) {
        close(r->fd);
    }
    free(r->band);
    free(r->tile);
    free(r->raster);
    free(r);
}
