/*
 * Opening a pyramidal TIFF: finding its levels and keeping what serving a tile needs.
 *
 * Three layouts carry reduced resolutions: SubIFDs of IFD 0 (OME-TIFF, vips --subifd), following IFDs marked
 * reduced-resolution by NewSubfileType (vips --pyramid, COG), and Aperio SVS (IFD 0, a striped thumbnail, further tiled
 * IFDs as levels, then label and macro images). The walk reads directories only; each level is read by
 * tiler_tiff_read_level (tiff_pyramid_level.c), and the levels must shrink; the directories that are no level may be
 * associated images (tiff_pyramid_associated.c). A pyramid is opened on a file's descriptor, or over a caller's source of
 * bytes (an object in a store, read ahead by the caller): the same walk, through other client procedures.
 */
#include "tiff_pyramid_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the current directory of the main chain is one of the pyramid's levels under `layout`. */
static int tiler_tiff_is_level(TIFF *tif, int layout) {
    uint32_t type = 0;
    TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &type);
    if (!TIFFIsTiled(tif)) return 0; /* Aperio's thumbnail, label and macro; a striped overview */
    if (layout == TILER_TIFF_LAYOUT_PYRAMID) return (type & FILETYPE_REDUCEDIMAGE) != 0 && (type & FILETYPE_MASK) == 0;
    const char *description = NULL;
    TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description);
    int named = description != NULL && (strstr(description, "label") != NULL || strstr(description, "macro") != NULL);
    return type == 0 && !named;
}

/* Walks the main chain after IFD 0, collecting the offsets of level directories into `found` (capacity max). */
static int tiler_tiff_walk_chain(tiler_tiff_pyramid *p, TIFF *tif, uint64_t *found, int *count, int max, char *message, size_t capacity) {
    p->handles[0].error[0] = 0;
    for (int seen = 1; TIFFReadDirectory(tif); seen++) {
        if (seen >= TILER_TIFF_PYRAMID_MAX_DIRECTORIES) {
            tiler_tiff_say(message, capacity, "more than %d directories (a loop?)", TILER_TIFF_PYRAMID_MAX_DIRECTORIES);
            return TILER_TIFF_ERR_CORRUPT;
        }
        if (tiler_tiff_is_level(tif, p->layout)) {
            if (*count < max) found[(*count)++] = TIFFCurrentDirOffset(tif);
        } else {
            tiler_tiff_note_associated(p, tif);
        }
    }
    if (p->handles[0].error[0] != 0) {
        tiler_tiff_say(message, capacity, "cannot read the chain of directories: %s", p->handles[0].error);
        return TILER_TIFF_ERR_CORRUPT;
    }
    return TILER_TIFF_OK;
}

/* Copies IFD 0's ICC profile and ImageDescription, and lists the directories of every level (IFD 0's first). */
static int tiler_tiff_find_levels(tiler_tiff_pyramid *p, TIFF *tif, uint64_t *found, int *count, int max, char *message,
                                  size_t capacity) {
    uint32_t icc_length = 0;
    const unsigned char *icc = NULL;
    const char *description = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc != NULL && icc_length > 0) {
        p->icc = malloc(icc_length);
        if (p->icc == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
        memcpy(p->icc, icc, icc_length);
        p->icc_length = icc_length;
    }
    if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) && description != NULL) {
        p->description = strdup(description);
        if (p->description == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    }
    float x_resolution = 0, y_resolution = 0;
    uint16_t unit = RESUNIT_INCH;
    if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x_resolution) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y_resolution)) {
        p->x_resolution = x_resolution;
        p->y_resolution = y_resolution;
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
    p->resolution_unit = unit;
    found[(*count)++] = TIFFCurrentDirOffset(tif);
    uint16_t subifd_count = 0;
    uint64_t *subifds = NULL;
    if (TIFFGetField(tif, TIFFTAG_SUBIFD, &subifd_count, &subifds) && subifd_count > 0 && subifds != NULL) {
        p->layout = TILER_TIFF_LAYOUT_SUBIFDS;
        for (int i = 0; i < subifd_count && *count < max; i++) found[(*count)++] = subifds[i];
        return TILER_TIFF_OK;
    }
    p->layout = description != NULL && strncmp(description, "Aperio", 6) == 0 ? TILER_TIFF_LAYOUT_APERIO : TILER_TIFF_LAYOUT_PYRAMID;
    return tiler_tiff_walk_chain(p, tif, found, count, max, message, capacity);
}

/* Finds and reads the levels, and checks that they make a pyramid. */
static int tiler_tiff_pyramid_scan(tiler_tiff_pyramid *p, char *message, size_t capacity) {
    TIFF *tif = p->handles[0].tif;
    if (!TIFFIsTiled(tif)) {
        tiler_tiff_say(message, capacity, "the full-resolution image is striped, not tiled");
        return TILER_TIFF_ERR_NOT_PYRAMID;
    }
    p->big_tiff = TIFFIsBigTIFF(tif);
    uint64_t found[64];
    int count = 0;
    int code = tiler_tiff_find_levels(p, tif, found, &count, 64, message, capacity);
    if (code != TILER_TIFF_OK) return code;
    if (count < 2) {
        /* One level small enough to make every coarser Deep Zoom level from (as `tiler slice --container tiff` writes
           an image that fits in one tile) is served; a larger one would mean decoding all of it for each coarse tile. */
        uint32_t width = 0, height = 0;
        TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
        if (count < 1 || width == 0 || height == 0 || width > TILER_TIFF_SINGLE_LEVEL_MAX || height > TILER_TIFF_SINGLE_LEVEL_MAX) {
            tiler_tiff_say(message, capacity, "a single resolution of %u × %u (no reduced-resolution levels; one level is served up to %d × %d)",
                           width, height, TILER_TIFF_SINGLE_LEVEL_MAX, TILER_TIFF_SINGLE_LEVEL_MAX);
            return TILER_TIFF_ERR_NOT_PYRAMID;
        }
    }
    p->levels = calloc((size_t)count, sizeof *p->levels);
    if (p->levels == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    p->level_count = count;
    for (int i = 0; i < count; i++) {
        code = tiler_tiff_read_level(p, tif, found[i], i, message, capacity);
        if (code != TILER_TIFF_OK) return code;
        const tiler_tiff_level *a = &p->levels[i].info, *b = i > 0 ? &p->levels[i - 1].info : NULL;
        if (b != NULL && (a->width > b->width || a->height > b->height || (a->width == b->width && a->height == b->height))) {
            tiler_tiff_say(message, capacity, "level %d (%u × %u) is not smaller than level %d (%u × %u)", i, a->width, a->height, i - 1,
                           b->width, b->height);
            return TILER_TIFF_ERR_NOT_PYRAMID;
        }
    }
    p->handles[0].level = -1;
    return TILER_TIFF_OK;
}

/* A pyramid reading `fd` (owned), or `source` when fd < 0; NULL (fd closed) when memory runs out. */
static tiler_tiff_pyramid *tiler_tiff_pyramid_new(int fd, const tiler_tiff_source *source) {
    tiler_tiff_pyramid *p = calloc(1, sizeof *p);
    if (p == NULL) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    p->fd = fd;
    if (source != NULL) p->source = *source;
    for (int i = 0; i < TILER_TIFF_PYRAMID_HANDLES; i++) {
        pthread_mutex_init(&p->handles[i].lock, NULL);
        p->handles[i].fd = fd;
        p->handles[i].source = source != NULL ? &p->source : NULL;
        p->handles[i].level = -1;
    }
    return p;
}

/* Opens handle 0 on `p` (its file_size set) and reads its levels; *out = p, or p destroyed and an error code. */
static int tiler_tiff_pyramid_finish_open(tiler_tiff_pyramid *p, tiler_tiff_pyramid **out, char *message, size_t capacity) {
    int code = TILER_TIFF_OK;
    if (tiler_tiff_handle_open(&p->handles[0]) != 0) {
        tiler_tiff_say(message, capacity, "%s", p->handles[0].error);
        code = TILER_TIFF_ERR_CORRUPT;
    } else {
        code = tiler_tiff_pyramid_scan(p, message, capacity);
    }
    if (code != TILER_TIFF_OK) {
        tiler_tiff_pyramid_destroy(p);
        return code;
    }
    *out = p;
    return TILER_TIFF_OK;
}

int tiler_tiff_pyramid_open(int fd, tiler_tiff_pyramid **out, char *message, size_t capacity) {
    *out = NULL;
    tiler_tiff_say(message, capacity, "%s", "");
    tiler_tiff_route_stray_messages();
    tiler_tiff_pyramid *p = tiler_tiff_pyramid_new(fd, NULL);
    if (p == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        tiler_tiff_say(message, capacity, "cannot stat the file: %s", strerror(errno));
        tiler_tiff_pyramid_destroy(p);
        return TILER_TIFF_ERR_IO;
    }
    p->file_size = (uint64_t)info.st_size;
    return tiler_tiff_pyramid_finish_open(p, out, message, capacity);
}

int tiler_tiff_pyramid_open_source(const tiler_tiff_source *source, tiler_tiff_pyramid **out, char *message, size_t capacity) {
    *out = NULL;
    tiler_tiff_say(message, capacity, "%s", "");
    tiler_tiff_route_stray_messages();
    tiler_tiff_pyramid *p = tiler_tiff_pyramid_new(-1, source);
    if (p == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    p->file_size = source->size;
    return tiler_tiff_pyramid_finish_open(p, out, message, capacity);
}

void tiler_tiff_pyramid_get_info(const tiler_tiff_pyramid *p, tiler_tiff_pyramid_info *info) {
    info->layout = p->layout;
    info->level_count = p->level_count;
    info->big_tiff = p->big_tiff;
    info->icc = p->icc;
    info->icc_length = p->icc_length;
    info->description = p->description;
    info->file_size = p->file_size;
    info->x_resolution = p->x_resolution;
    info->y_resolution = p->y_resolution;
    info->resolution_unit = p->resolution_unit;
}

void tiler_tiff_pyramid_get_level(const tiler_tiff_pyramid *p, int index, tiler_tiff_level *level) { *level = p->levels[index].info; }

void tiler_tiff_pyramid_destroy(tiler_tiff_pyramid *p) {
    if (p == NULL) return;
    for (int i = 0; i < TILER_TIFF_PYRAMID_HANDLES; i++) {
        if (p->handles[i].tif != NULL) TIFFClose(p->handles[i].tif);
        pthread_mutex_destroy(&p->handles[i].lock);
    }
    for (int i = 0; i < p->level_count; i++) {
        free(p->levels[i].offsets);
        free(p->levels[i].counts);
        free((void *)p->levels[i].checked);
        free(p->levels[i].tables);
    }
    for (int i = 0; i < p->associated_count; i++) free(p->associated[i].tables);
    free(p->levels);
    free(p->icc);
    free(p->description);
    if (p->fd >= 0) close(p->fd);
    free(p);
}

int tiler_tiff_pyramid_descriptor(const tiler_tiff_pyramid *p) { return p->fd; }
