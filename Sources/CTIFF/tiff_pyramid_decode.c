/*
 * Decoding one stored tile with one of the pyramid's libtiff handles. The tile's bytes are read (and checked) by
 * tiler_tiff_pyramid_read_stored — or handed in by a caller that read them from a store (decode_tile_from) — and given
 * to TIFFReadFromUserBuffer on a handle whose current directory is the level's: a free handle already on that level is
 * preferred (switching directory rereads the IFD), then any free handle, else the caller waits for one. After a failure
 * the handle rereads its directory before its next tile, so no codec state outlives the damage.
 */
#include "tiff_pyramid_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Locks and returns a handle for `level`. */
static tiler_tiff_handle *tiler_tiff_acquire(tiler_tiff_pyramid *p, int level) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < TILER_TIFF_PYRAMID_HANDLES; i++) {
            tiler_tiff_handle *h = &p->handles[i];
            if (pthread_mutex_trylock(&h->lock) != 0) continue;
            if (pass == 1 || h->level == level) return h;
            pthread_mutex_unlock(&h->lock);
        }
    }
    tiler_tiff_handle *h = &p->handles[atomic_fetch_add(&p->next_handle, 1) % TILER_TIFF_PYRAMID_HANDLES];
    pthread_mutex_lock(&h->lock);
    return h;
}

/* Makes `level` the handle's current directory (opening the handle first if needed); 0 or -1 with message. */
static int tiler_tiff_select_level(tiler_tiff_pyramid *p, tiler_tiff_handle *h, int level, char *message, size_t capacity) {
    if (h->level == level) return 0;
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    h->error[0] = 0;
    h->level = -1;
    if (tiler_tiff_handle_open(h) != 0 || !TIFFSetSubDirectory(h->tif, L->directory)) {
        tiler_tiff_say(message, capacity, "level %d: cannot read its directory again: %s (the file changed since it was opened?)", level,
                       h->error[0] ? h->error : "libtiff failed");
        return -1;
    }
    /* libjpeg converts YCbCr (any subsampling) to RGB; the pseudo-tag is reset with every directory. */
    if (L->info.compression == COMPRESSION_JPEG && L->photometric == PHOTOMETRIC_YCBCR) {
        TIFFSetField(h->tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    tmsize_t size = TIFFTileSize(h->tif);
    if (size != (tmsize_t)L->decoded_bytes) {
        tiler_tiff_say(message, capacity, "level %d: libtiff decodes tiles of %lld bytes, expected %zu", level, (long long)size,
                       L->decoded_bytes);
        return -1;
    }
    h->level = level;
    return 0;
}

/* Min-is-white inverted, associated alpha undone, gray+alpha spread to RGBA: the delivered pixels from the decoded ones. */
static void tiler_tiff_finish_pixels(const tiler_tiff_pyramid_level *L, unsigned char *pixels) {
    size_t count = (size_t)L->info.tile_width * L->info.tile_height;
    int spp = L->samples, colors = L->extra_alpha != 0 ? spp - 1 : spp;
    if (L->photometric == PHOTOMETRIC_MINISWHITE) {
        for (size_t i = 0; i < count; i++) pixels[i * (size_t)spp] = (unsigned char)(255 - pixels[i * (size_t)spp]);
    }
    if (L->extra_alpha == 1) {
        for (size_t i = 0; i < count; i++) {
            unsigned char *px = pixels + i * (size_t)spp;
            unsigned alpha = px[colors];
            for (int s = 0; s < colors; s++) {
                unsigned value = alpha == 0 ? 0 : (px[s] * 255u + alpha / 2) / alpha;
                px[s] = (unsigned char)(value > 255 ? 255 : value);
            }
        }
    }
    if (spp == 2) {
        for (size_t i = count; i-- > 0;) {
            unsigned char gray = pixels[i * 2], alpha = pixels[i * 2 + 1];
            unsigned char *px = pixels + i * 4;
            px[0] = px[1] = px[2] = gray;
            px[3] = alpha;
        }
    }
}

/* Decodes tile `index` of `level` from its stored bytes `data` (which libtiff may change: bits reversed for FillOrder 2). */
static int tiler_tiff_decode_stored(tiler_tiff_pyramid *p, int level, int column, int row, uint32_t index, unsigned char *data, size_t count,
                                    unsigned char *dst, char *message, size_t capacity_message) {
    const tiler_tiff_pyramid_level *L = &p->levels[level];
    int code = TILER_TIFF_OK;
    tiler_tiff_handle *h = tiler_tiff_acquire(p, level);
    if (tiler_tiff_select_level(p, h, level, message, capacity_message) != 0) {
        code = TILER_TIFF_ERR_CORRUPT;
    } else {
        h->error[0] = 0;
        h->damage[0] = 0;
        (void)tiler_tiff_take_stray_error();
        int decoded = TIFFReadFromUserBuffer(h->tif, index, data, (tmsize_t)count, dst, (tmsize_t)L->decoded_bytes);
        const char *stray = tiler_tiff_take_stray_error();
        if (!decoded || h->error[0] != 0 || h->damage[0] != 0 || stray[0] != 0) {
            const char *why = h->error[0] != 0    ? h->error
                              : h->damage[0] != 0 ? h->damage
                              : stray[0] != 0     ? stray
                                                  : "libtiff could not decode it";
            tiler_tiff_say(message, capacity_message, "tile (%d, %d) of level %d is damaged: %s", column, row, level, why);
            h->level = -1;
            code = TILER_TIFF_ERR_CORRUPT;
        }
    }
    pthread_mutex_unlock(&h->lock);
    if (code == TILER_TIFF_OK) tiler_tiff_finish_pixels(L, dst);
    return code;
}

/* Checks the tile and the caller's buffer; sets *index. */
static int tiler_tiff_check_decode(const tiler_tiff_pyramid *p, int level, int column, int row, size_t capacity, uint32_t *index,
                                   char *message, size_t capacity_message) {
    int code = tiler_tiff_check_extent(p, level, column, row, index, message, capacity_message);
    if (code != TILER_TIFF_OK) return code;
    const tiler_tiff_level *info = &p->levels[level].info;
    size_t needed = (size_t)info->tile_width * info->tile_height * (size_t)info->channels;
    if (capacity < needed) {
        tiler_tiff_say(message, capacity_message, "a buffer of %zu bytes is too small for a tile of %zu", capacity, needed);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_decode_tile(tiler_tiff_pyramid *p, int level, int column, int row, unsigned char *dst, size_t capacity,
                                   char *message, size_t capacity_message) {
    uint32_t index = 0;
    int code = tiler_tiff_check_decode(p, level, column, row, capacity, &index, message, capacity_message);
    unsigned char *data = NULL;
    size_t count = 0;
    if (code == TILER_TIFF_OK) code = tiler_tiff_pyramid_read_stored(p, level, column, row, &data, &count, message, capacity_message);
    if (code != TILER_TIFF_OK) return code;
    code = tiler_tiff_decode_stored(p, level, column, row, index, data, count, dst, message, capacity_message);
    free(data);
    return code;
}

int tiler_tiff_pyramid_decode_tile_from(tiler_tiff_pyramid *p, int level, int column, int row, const unsigned char *data, size_t count,
                                        unsigned char *dst, size_t capacity, char *message, size_t capacity_message) {
    uint32_t index = 0;
    int code = tiler_tiff_check_decode(p, level, column, row, capacity, &index, message, capacity_message);
    if (code != TILER_TIFF_OK) return code;
    if (count != p->levels[level].counts[index]) {
        tiler_tiff_say(message, capacity_message, "tile (%d, %d) of level %d has %llu stored bytes, not the %zu given", column, row, level,
                       (unsigned long long)p->levels[level].counts[index], count);
        return TILER_TIFF_ERR_ARGUMENT;
    }
    /* The caller's bytes stay as they are: libtiff is given a copy it may change. */
    unsigned char *copy = malloc(count);
    if (copy == NULL) return tiler_tiff_say(message, capacity_message, "out of memory decoding a tile of %zu bytes", count), TILER_TIFF_ERR_NOMEM;
    memcpy(copy, data, count);
    code = tiler_tiff_decode_stored(p, level, column, row, index, copy, count, dst, message, capacity_message);
    free(copy);
    return code;
}
