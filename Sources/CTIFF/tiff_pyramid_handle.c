/*
 * The pyramid's libtiff handles. Several threads decode tiles of one file at once, and a libtiff handle is not
 * thread-safe, so the pyramid keeps a few, each behind its own lock, all on the one descriptor: client procedures read
 * with pread at the handle's own offset, so no handle moves another's file position and nothing needs a second open().
 * A pyramid that is no file (tiler_tiff_pyramid_open_source) has its handles read through the caller's source instead.
 * Each handle has its own error and warning handlers (TIFFOpenOptions, libtiff 4.5) that keep the first message in
 * the handle; libtiff's process-wide handlers are never reached (see tiler_tiff_stray_messages).
 */
#include "tiff_pyramid_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tiler_tiff_say(char *message, size_t capacity, const char *format, ...) {
    if (message == NULL || capacity == 0) return;
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, capacity, format, ap);
    va_end(ap);
}

static tmsize_t tiler_tiff_handle_read(thandle_t handle, void *buffer, tmsize_t size) {
    tiler_tiff_handle *h = handle;
    if (h->source != NULL) {
        /* -1 when the source does not hold the bytes: libtiff fails the read, and the open is tried again. */
        int64_t n = h->source->read(h->source->context, h->offset, buffer, (size_t)size);
        if (n < 0) return -1;
        h->offset += (uint64_t)n;
        return (tmsize_t)n;
    }
    tmsize_t done = 0;
    while (done < size) {
        ssize_t n = pread(h->fd, (char *)buffer + done, (size_t)(size - done), (off_t)(h->offset + (uint64_t)done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += n;
    }
    h->offset += (uint64_t)done;
    return done;
}

static tmsize_t tiler_tiff_handle_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle;
    (void)buffer;
    (void)size;
    return -1;
}

static toff_t tiler_tiff_handle_size(thandle_t handle) {
    tiler_tiff_handle *h = handle;
    if (h->source != NULL) return (toff_t)h->source->size;
    struct stat info;
    return fstat(h->fd, &info) == 0 ? (toff_t)info.st_size : 0;
}

static toff_t tiler_tiff_handle_seek(thandle_t handle, toff_t offset, int whence) {
    tiler_tiff_handle *h = handle;
    if (whence == SEEK_SET) h->offset = offset;
    else if (whence == SEEK_CUR) h->offset += offset;
    else h->offset = tiler_tiff_handle_size(handle) + offset;
    return h->offset;
}

static int tiler_tiff_handle_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static int tiler_tiff_handle_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0; /* never mmap: a file truncated under us must be an error, not SIGBUS */
}

static void tiler_tiff_handle_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static int tiler_tiff_handle_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_handle *h = user;
    if (h->error[0] != 0) return 1;
    char text[260];
    vsnprintf(text, sizeof text, format, ap);
    int named = module != NULL && module[0] != 0 && strstr(text, module) == NULL;
    snprintf(h->error, sizeof h->error, "%s%s%s", named ? module : "", named ? ": " : "", text);
    /* One line: libtiff's messages sometimes continue on a second. */
    for (char *c = h->error; *c != 0; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return 1;
}

/* Warnings libtiff gives for damage it works around (an IFD loop, a tag it could not read): errors here. */
static int tiler_tiff_is_damage(const char *text) {
    static const char *const patterns[] = {"looping", "IO error", "Cannot read", "Can not read", "Read error", "past end"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        if (strstr(text, patterns[i]) != NULL) return 1;
    }
    return 0;
}

/* libjpeg's damage warnings (a corrupt tile must fail) and libtiff's damage warnings count; unknown tags and the like do not. */
static int tiler_tiff_handle_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_handle *h = user;
    char text[260];
    vsnprintf(text, sizeof text, format, ap);
    char *sink = module != NULL && strcmp(module, "JPEGLib") == 0 ? h->damage : tiler_tiff_is_damage(text) ? h->error : NULL;
    if (sink == NULL || sink[0] != 0) return 1;
    snprintf(sink, sizeof h->error, "%s", text);
    for (char *c = sink; *c != 0; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return 1;
}

int tiler_tiff_handle_open(tiler_tiff_handle *h) {
    if (h->tif != NULL) return 0;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        snprintf(h->error, sizeof h->error, "out of memory opening a libtiff handle");
        return -1;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, tiler_tiff_handle_on_error, h);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tiler_tiff_handle_on_warning, h);
    /* A backstop for libtiff's own arrays (a damaged count cannot make it ask for more). */
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)1 << 28);
    h->offset = 0;
    h->level = -1;
    /* "D": TileOffsets/TileByteCounts are loaded only when asked for; decoding hands libtiff the tile's bytes itself. */
    h->tif = TIFFClientOpenExt("tiff", "rD", h, tiler_tiff_handle_read, tiler_tiff_handle_write, tiler_tiff_handle_seek,
                               tiler_tiff_handle_close, tiler_tiff_handle_size, tiler_tiff_handle_map, tiler_tiff_handle_unmap, options);
    TIFFOpenOptionsFree(options);
    if (h->tif == NULL && h->error[0] == 0) snprintf(h->error, sizeof h->error, "libtiff cannot open the file");
    return h->tif != NULL ? 0 : -1;
}

/* ---- Stray messages: what reaches libtiff's process-wide handlers ----
 * Some of libtiff 4.5's codecs (ZIPDecode, the JPEG codec's libjpeg messages, TIFFFillTile) and OpenSlide's own libtiff
 * handles report through the process-wide handlers, which print to stderr by default: a line no log format or rate
 * limit governs, on every failed read a client can ask for. They are counted instead, and an error's text is kept for
 * the thread it happened on, so the call that failed can say why in its own one-line error. */

static atomic_long tiler_tiff_stray_count;
static _Thread_local char tiler_tiff_stray_error[256];
static pthread_once_t tiler_tiff_stray_once = PTHREAD_ONCE_INIT;

static void tiler_tiff_keep_stray_error(const char *module, const char *format, va_list ap) {
    atomic_fetch_add(&tiler_tiff_stray_count, 1);
    if (tiler_tiff_stray_error[0] != 0) return;
    char text[200];
    vsnprintf(text, sizeof text, format, ap);
    if (module != NULL && module[0] != 0 && strstr(text, module) == NULL) {
        snprintf(tiler_tiff_stray_error, sizeof tiler_tiff_stray_error, "%s: %s", module, text);
    } else {
        snprintf(tiler_tiff_stray_error, sizeof tiler_tiff_stray_error, "%s", text);
    }
    for (char *c = tiler_tiff_stray_error; *c != 0; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
}

static void tiler_tiff_count_stray_warning(const char *module, const char *format, va_list ap) {
    (void)module;
    (void)format;
    (void)ap;
    atomic_fetch_add(&tiler_tiff_stray_count, 1);
}

static void tiler_tiff_install_stray_handlers_once(void) {
    TIFFSetErrorHandler(tiler_tiff_keep_stray_error);
    TIFFSetWarningHandler(tiler_tiff_count_stray_warning);
}

void tiler_tiff_route_stray_messages(void) { pthread_once(&tiler_tiff_stray_once, tiler_tiff_install_stray_handlers_once); }

void tiler_tiff_count_stray_messages(void) { tiler_tiff_route_stray_messages(); }

long tiler_tiff_stray_messages(void) { return atomic_load(&tiler_tiff_stray_count); }

const char *tiler_tiff_take_stray_error(void) {
    static _Thread_local char taken[256];
    snprintf(taken, sizeof taken, "%s", tiler_tiff_stray_error);
    tiler_tiff_stray_error[0] = 0;
    return taken;
}
