/*
 * Opening a pyramidal TIFF: finding its levels and keeping what serving a tile needs.
 *
 * Three layouts carry reduced resolutions: SubIFDs of IFD 0 (OME-TIFF, vips --subifd), following IFDs marked
 * reduced-resolution by NewSubfileType (vips --pyramid, COG), and Aperio SVS (IFD 0, a striped thumbnail, further tiled
 * IFDs as levels, then label and macro images). The walk reads directories only; each level's TileOffsets,
 * TileByteCounts and JPEGTables are copied out so stored JPEG tiles can be served with pread alone. Everything a level
 * could not be decoded by is refused here, naming the level, so a tile request never meets it.
 */
#include "tiff_pyramid_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names for compressions libtiff may not know, so a refusal says what the file is. */
static const char *tiler_tiff_compression_name(int compression) {
    switch (compression) {
    case 33003: case 33005: return "Aperio JPEG 2000";
    case 34712: return "JPEG 2000";
    case 50001: return "WebP";
    case 50002: return "JPEG XL";
    default: {
        const TIFFCodec *codec = TIFFFindCODEC((uint16_t)compression);
        return codec != NULL ? codec->name : "unknown";
    }
    }
}

/* Refuses what decode_tile could not deliver as 8-bit gray, RGB or RGBA; 0 when the level is decodable. */
static int tiler_tiff_check_level(TIFF *tif, tiler_tiff_pyramid_level *L, int index, char *message, size_t capacity) {
    uint16_t bps = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, extra_count = 0, *extra = NULL;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    int c = L->info.compression, spp = L->samples, photometric = L->photometric;
    const char *refusal = NULL;
    char detail[120] = "";
    if (c == COMPRESSION_OJPEG) refusal = "old-style JPEG compression (6) is not supported";
    else if (!TIFFIsCODECConfigured((uint16_t)c)) {
        snprintf(detail, sizeof detail, "compression %d (%s) is not supported", c, tiler_tiff_compression_name(c));
        refusal = detail;
    } else if (bps == 16) refusal = "16-bit samples are not supported yet (8-bit levels are)";
    else if (bps != 8) {
        snprintf(detail, sizeof detail, "%u-bit samples are not supported (8-bit are)", bps);
        refusal = detail;
    } else if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID) refusal = "samples that are not unsigned integers are not supported";
    else if (planar == PLANARCONFIG_SEPARATE && spp > 1) refusal = "separate colour planes are not supported";
    else if (photometric == PHOTOMETRIC_YCBCR && c != COMPRESSION_JPEG) refusal = "YCbCr without JPEG compression is not supported";
    if (refusal == NULL) {
        int gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
        int rgb = photometric == PHOTOMETRIC_RGB || photometric == PHOTOMETRIC_YCBCR;
        if (gray && (spp == 1 || spp == 2)) L->info.channels = spp == 1 ? 1 : 4;
        else if (rgb && (spp == 3 || (spp == 4 && photometric == PHOTOMETRIC_RGB))) L->info.channels = spp;
        else {
            snprintf(detail, sizeof detail, "photometric interpretation %d with %d samples per pixel is not supported", photometric, spp);
            refusal = detail;
        }
    }
    if (refusal != NULL) {
        tiler_tiff_say(message, capacity, "level %d: %s", index, refusal);
        return TILER_TIFF_ERR_UNSUPPORTED;
    }
    if (spp == 2 || spp == 4) L->extra_alpha = extra_count > 0 && extra[extra_count - 1] == EXTRASAMPLE_ASSOCALPHA ? 1 : 2;
    L->info.jpeg_pass_through = c == COMPRESSION_JPEG && L->extra_alpha == 0 && photometric != PHOTOMETRIC_MINISWHITE;
    L->info.jpeg_rgb = L->info.jpeg_pass_through && photometric == PHOTOMETRIC_RGB;
    return TILER_TIFF_OK;
}

/* Copies the tile index and JPEGTables of the current directory. */
static int tiler_tiff_copy_tiles(TIFF *tif, tiler_tiff_pyramid_level *L, int index, char *message, size_t capacity) {
    uint64_t *offsets = NULL, *counts = NULL;
    if (TIFFNumberOfTiles(tif) != L->tiles || !TIFFGetField(tif, TIFFTAG_TILEOFFSETS, &offsets) ||
        !TIFFGetField(tif, TIFFTAG_TILEBYTECOUNTS, &counts) || offsets == NULL || counts == NULL) {
        tiler_tiff_say(message, capacity, "level %d: its TileOffsets or TileByteCounts are missing or of the wrong length", index);
        return TILER_TIFF_ERR_CORRUPT;
    }
    L->offsets = malloc(sizeof(uint64_t) * L->tiles);
    L->counts = malloc(sizeof(uint64_t) * L->tiles);
    if (L->offsets == NULL || L->counts == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    memcpy(L->offsets, offsets, sizeof(uint64_t) * L->tiles);
    memcpy(L->counts, counts, sizeof(uint64_t) * L->tiles);
    uint32_t length = 0;
    const unsigned char *tables = NULL;
    if (L->info.compression == COMPRESSION_JPEG && TIFFGetField(tif, TIFFTAG_JPEGTABLES, &length, &tables) && tables != NULL) {
        if (length < 4 || tables[0] != 0xFF || tables[1] != 0xD8 || tables[length - 2] != 0xFF || tables[length - 1] != 0xD9) {
            tiler_tiff_say(message, capacity, "level %d: its JPEGTables are not a JPEG tables stream (SOI … EOI)", index);
            return TILER_TIFF_ERR_CORRUPT;
        }
        L->tables = malloc(length);
        if (L->tables == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
        memcpy(L->tables, tables, length);
        L->tables_length = length;
    }
    return TILER_TIFF_OK;
}

/* Reads the level whose IFD is at `directory` into L. */
static int tiler_tiff_read_level(tiler_tiff_pyramid *p, TIFF *tif, uint64_t directory, int index, char *message, size_t capacity) {
    tiler_tiff_handle *h = &p->handles[0];
    h->error[0] = 0;
    if (!TIFFSetSubDirectory(tif, directory)) {
        tiler_tiff_say(message, capacity, "level %d: cannot read its directory: %s", index, h->error[0] ? h->error : "libtiff failed");
        return TILER_TIFF_ERR_CORRUPT;
    }
    tiler_tiff_pyramid_level *L = &p->levels[index];
    L->directory = directory;
    uint16_t compression = COMPRESSION_NONE, photometric = 0xFFFF, spp = 1;
    uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &L->info.width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &L->info.height);
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    if (!TIFFIsTiled(tif)) {
        tiler_tiff_say(message, capacity, "level %d is striped, not tiled", index);
        return TILER_TIFF_ERR_NOT_PYRAMID;
    }
    if (L->info.width == 0 || L->info.height == 0 || tw == 0 || th == 0 || photometric == 0xFFFF) {
        tiler_tiff_say(message, capacity, "level %d: its size, tile size or PhotometricInterpretation is missing", index);
        return TILER_TIFF_ERR_CORRUPT;
    }
    if (tw > TILER_TIFF_PYRAMID_MAX_TILE_SIDE || th > TILER_TIFF_PYRAMID_MAX_TILE_SIDE) {
        tiler_tiff_say(message, capacity, "level %d: tiles of %u × %u pixels are too large (at most %d a side)", index, tw, th,
                       TILER_TIFF_PYRAMID_MAX_TILE_SIDE);
        return TILER_TIFF_ERR_UNSUPPORTED;
    }
    L->info.tile_width = tw;
    L->info.tile_height = th;
    L->info.columns = (uint32_t)(((uint64_t)L->info.width + tw - 1) / tw);
    L->info.rows = (uint32_t)(((uint64_t)L->info.height + th - 1) / th);
    L->info.compression = compression;
    L->photometric = photometric;
    L->samples = spp;
    L->tiles = L->info.columns * L->info.rows;
    L->decoded_bytes = (size_t)tw * th * spp;
    int code = tiler_tiff_check_level(tif, L, index, message, capacity);
    if (code == TILER_TIFF_OK) code = tiler_tiff_copy_tiles(tif, L, index, message, capacity);
    if (code == TILER_TIFF_OK && h->error[0] != 0) {
        tiler_tiff_say(message, capacity, "level %d: %s", index, h->error);
        code = TILER_TIFF_ERR_CORRUPT;
    }
    return code;
}

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
        if (tiler_tiff_is_level(tif, p->layout) && *count < max) found[(*count)++] = TIFFCurrentDirOffset(tif);
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
        tiler_tiff_say(message, capacity, "a single resolution (no reduced-resolution levels)");
        return TILER_TIFF_ERR_NOT_PYRAMID;
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

int tiler_tiff_pyramid_open(int fd, tiler_tiff_pyramid **out, char *message, size_t capacity) {
    *out = NULL;
    tiler_tiff_say(message, capacity, "%s", "");
    tiler_tiff_pyramid *p = calloc(1, sizeof *p);
    if (p == NULL) {
        close(fd);
        return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
    }
    p->fd = fd;
    for (int i = 0; i < TILER_TIFF_PYRAMID_HANDLES; i++) {
        pthread_mutex_init(&p->handles[i].lock, NULL);
        p->handles[i].fd = fd;
        p->handles[i].level = -1;
    }
    struct stat info;
    int code = TILER_TIFF_OK;
    if (fstat(fd, &info) != 0) {
        tiler_tiff_say(message, capacity, "cannot stat the file: %s", strerror(errno));
        code = TILER_TIFF_ERR_IO;
    } else if (tiler_tiff_handle_open(&p->handles[0]) != 0) {
        tiler_tiff_say(message, capacity, "%s", p->handles[0].error);
        code = TILER_TIFF_ERR_CORRUPT;
    } else {
        p->file_size = (uint64_t)info.st_size;
        code = tiler_tiff_pyramid_scan(p, message, capacity);
    }
    if (code != TILER_TIFF_OK) {
        tiler_tiff_pyramid_destroy(p);
        return code;
    }
    *out = p;
    return TILER_TIFF_OK;
}

void tiler_tiff_pyramid_get_info(const tiler_tiff_pyramid *p, tiler_tiff_pyramid_info *info) {
    info->layout = p->layout;
    info->level_count = p->level_count;
    info->big_tiff = p->big_tiff;
    info->icc = p->icc;
    info->icc_length = p->icc_length;
    info->description = p->description;
    info->file_size = p->file_size;
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
        free(p->levels[i].tables);
    }
    free(p->levels);
    free(p->icc);
    free(p->description);
    close(p->fd);
    free(p);
}
