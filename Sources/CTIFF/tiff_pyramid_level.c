/*
 * Reading one level's directory: its geometry, whether decode_tile can deliver it (everything it cannot is refused here,
 * naming the level, so a tile request never meets it), and copies of its tile index and JPEGTables.
 */
#include "tiff_pyramid_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    L->checked = calloc(((size_t)L->tiles + 63) / 64, sizeof(uint64_t));
    if (L->offsets == NULL || L->counts == NULL || L->checked == NULL) return tiler_tiff_say(message, capacity, "out of memory"), TILER_TIFF_ERR_NOMEM;
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
int tiler_tiff_read_level(tiler_tiff_pyramid *p, TIFF *tif, uint64_t directory, int index, char *message, size_t capacity) {
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
    if ((uint64_t)L->info.columns * L->info.rows > TILER_TIFF_PYRAMID_MAX_TILES) {
        tiler_tiff_say(message, capacity, "level %d: %u × %u tiles are too many (at most %llu)", index, L->info.columns, L->info.rows,
                       (unsigned long long)TILER_TIFF_PYRAMID_MAX_TILES);
        return TILER_TIFF_ERR_UNSUPPORTED;
    }
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
