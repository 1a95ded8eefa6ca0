/*
 * Decoding one band on several threads. libtiff handles are not thread-safe, so each extra thread has its own TIFF
 * opened on the same descriptor through client procedures that read with pread at a private offset (the main handle's
 * read/lseek position is untouched). A band is a row of tiles (split by tile columns) or, for contiguous strips, as
 * many whole strips as there are threads (one each). Everything a worker decodes lands in disjoint parts of the band.
 */
#include "tiff_reader_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static tmsize_t tiler_tiff_io_read(thandle_t handle, void *buffer, tmsize_t size) {
    tiler_tiff_worker *w = handle;
    tmsize_t done = 0;
    while (done < size) {
        ssize_t n = pread(w->fd, (char *)buffer + done, (size_t)(size - done), (off_t)(w->offset + (uint64_t)done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += n;
    }
    w->offset += (uint64_t)done;
    return done;
}

static tmsize_t tiler_tiff_io_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle;
    (void)buffer;
    (void)size;
    return -1;
}

static toff_t tiler_tiff_io_size(thandle_t handle) {
    tiler_tiff_worker *w = handle;
    struct stat info;
    return fstat(w->fd, &info) == 0 ? (toff_t)info.st_size : 0;
}

static toff_t tiler_tiff_io_seek(thandle_t handle, toff_t offset, int whence) {
    tiler_tiff_worker *w = handle;
    if (whence == SEEK_SET) w->offset = offset;
    else if (whence == SEEK_CUR) w->offset += offset;
    else w->offset = tiler_tiff_io_size(handle) + offset;
    return w->offset;
}

static int tiler_tiff_io_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static int tiler_tiff_io_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void tiler_tiff_io_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static int tiler_tiff_worker_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_worker *w = user;
    if (w->error[0] == 0) {
        char text[300];
        vsnprintf(text, sizeof text, format, ap);
        snprintf(w->error, sizeof w->error, "%s%s%s", module != NULL && strstr(text, module) == NULL ? module : "",
                 module != NULL && strstr(text, module) == NULL ? ": " : "", text);
    }
    return 1;
}

/* Workers report only what decides success (libjpeg's damage warnings in strict mode); other warnings are dropped. */
static int tiler_tiff_worker_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    tiler_tiff_worker *w = user;
    if (module != NULL && strcmp(module, "JPEGLib") == 0 && !w->lenient && w->damage[0] == 0) {
        vsnprintf(w->damage, sizeof w->damage, format, ap);
    }
    return 1;
}

void tiler_tiff_open_workers(tiler_tiff_reader *r) {
    /* Below a megapixel a second handle (its own directory read) and a thread per band cost more than they save. */
    if ((uint64_t)r->width * r->height < TILER_TIFF_PARALLEL_PIXELS) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int wanted = (int)(cores > TILER_TIFF_MAX_WORKERS + 1 ? TILER_TIFF_MAX_WORKERS : cores - 1);
    int parts = r->path == TILER_TIFF_PATH_TILES ? (int)((r->width + r->tile_width - 1) / r->tile_width) : (int)r->strips_per_plane;
    if (wanted > parts - 1) wanted = parts - 1;
    for (int i = 0; i < wanted; i++) {
        tiler_tiff_worker *w = &r->workers[i];
        memset(w, 0, sizeof *w);
        w->fd = r->fd;
        w->lenient = r->lenient;
        TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
        if (options == NULL) break;
        TIFFOpenOptionsSetErrorHandlerExtR(options, tiler_tiff_worker_on_error, w);
        TIFFOpenOptionsSetWarningHandlerExtR(options, tiler_tiff_worker_on_warning, w);
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)1 << 30);
        w->tif = TIFFClientOpenExt("tiff", "rm", w, tiler_tiff_io_read, tiler_tiff_io_write, tiler_tiff_io_seek, tiler_tiff_io_close,
                                   tiler_tiff_io_size, tiler_tiff_io_map, tiler_tiff_io_unmap, options);
        TIFFOpenOptionsFree(options);
        if (w->tif == NULL || !TIFFSetDirectory(w->tif, (tdir_t)r->page)) break;
        if (r->jpeg_rgb) TIFFSetField(w->tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        if (r->path == TILER_TIFF_PATH_TILES) {
            tmsize_t size = TIFFTileSize(w->tif);
            w->tile = size > 0 ? malloc((size_t)size) : NULL;
            if (w->tile == NULL) break;
        }
        r->worker_count = i + 1;
    }
    /* A handle that failed to open half-way is closed here; the ones before it are used. */
    tiler_tiff_worker *last = &r->workers[r->worker_count];
    if (r->worker_count < wanted && last->tif != NULL) {
        TIFFClose(last->tif);
        last->tif = NULL;
        free(last->tile);
        last->tile = NULL;
    }
}

void tiler_tiff_close_workers(tiler_tiff_reader *r) {
    for (int i = 0; i < r->worker_count; i++) {
        if (r->workers[i].tif != NULL) TIFFClose(r->workers[i].tif);
        free(r->workers[i].tile);
    }
    r->worker_count = 0;
}

/* Decodes part `part` of `parts` of the band at `top` with handle `tif`; returns 0 or -1 (message in the handle's sink). */
static int tiler_tiff_decode_part(tiler_tiff_reader *r, TIFF *tif, unsigned char *tile, uint32_t top, int part, int parts) {
    if (r->path == TILER_TIFF_PATH_TILES) {
        int planes = r->planar == PLANARCONFIG_SEPARATE ? r->spp : 1;
        int samples = r->planar == PLANARCONFIG_SEPARATE ? 1 : r->spp;
        tmsize_t tile_size = TIFFTileSize(tif);
        size_t tile_row = (size_t)TIFFTileRowSize64(tif);
        uint32_t rows = r->height - top < r->tile_height ? r->height - top : r->tile_height;
        uint32_t columns = (r->width + r->tile_width - 1) / r->tile_width;
        for (int plane = 0; plane < planes; plane++) {
            for (uint32_t column = (uint32_t)part; column < columns; column += (uint32_t)parts) {
                uint32_t x = column * r->tile_width;
                if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, top, 0, (uint16_t)plane), tile, tile_size) < 0) return -1;
                size_t offset = (size_t)x * (size_t)samples * (size_t)r->bps / 8;
                size_t length = r->plane_row_bytes - offset < tile_row ? r->plane_row_bytes - offset : tile_row;
                for (uint32_t y = 0; y < rows; y++) {
                    memcpy(r->target + ((size_t)plane * r->band_capacity_rows + y) * r->target_stride + offset, tile + (size_t)y * tile_row,
                           length);
                }
            }
        }
        return 0;
    }
    uint32_t row = top + (uint32_t)part * r->rows_per_strip;
    if (row >= r->height) return 0;
    size_t bytes = r->plane_row_bytes * r->rows_per_strip;
    unsigned char *dst = r->target + (size_t)part * r->rows_per_strip * r->target_stride;
    return TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, row, 0), dst, (tmsize_t)bytes) < 0 ? -1 : 0;
}

static void *tiler_tiff_worker_main(void *argument) {
    tiler_tiff_worker *w = argument;
    if (tiler_tiff_decode_part(w->owner, w->tif, w->tile, w->top, w->part, w->parts) < 0) w->failed = 1;
    return NULL;
}

int tiler_tiff_load_parallel(tiler_tiff_reader *r, uint32_t top) {
    int parts = r->worker_count + 1;
    pthread_t threads[TILER_TIFF_MAX_WORKERS];
    int started[TILER_TIFF_MAX_WORKERS] = {0};
    for (int i = 0; i < r->worker_count; i++) {
        tiler_tiff_worker *w = &r->workers[i];
        w->owner = r;
        w->part = i + 1;
        w->parts = parts;
        w->top = top;
        w->failed = 0;
        w->error[0] = 0;
        started[i] = pthread_create(&threads[i], NULL, tiler_tiff_worker_main, w) == 0;
        if (!started[i]) tiler_tiff_worker_main(w);
    }
    int failed = tiler_tiff_decode_part(r, r->tif, r->tile, top, 0, parts) < 0;
    for (int i = 0; i < r->worker_count; i++) {
        if (started[i]) pthread_join(threads[i], NULL);
    }
    if (failed) return tiler_tiff_library_failure(r, "cannot decode a tile or strip");
    for (int i = 0; i < r->worker_count; i++) {
        tiler_tiff_worker *w = &r->workers[i];
        if (w->failed) {
            snprintf(r->library_error, sizeof r->library_error, "%s", w->error[0] != 0 ? w->error : "cannot decode a tile or strip");
            return tiler_tiff_library_failure(r, "cannot decode a tile or strip");
        }
        if (w->damage[0] != 0 && r->damage[0] == 0) snprintf(r->damage, sizeof r->damage, "%s", w->damage);
        w->damage[0] = 0;
    }
    uint32_t capacity = r->band_capacity_rows;
    r->band_start = top;
    r->band_rows = r->height - top < capacity ? r->height - top : capacity;
    return TILER_TIFF_OK;
}
