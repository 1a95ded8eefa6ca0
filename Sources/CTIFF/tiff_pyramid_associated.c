/*
 * The associated images a pyramid keeps as directories of their own after its levels, as `tiler slice --container
 * tiff` stores a slide's label, macro and thumbnail: striped, marked reduced-resolution by NewSubfileType, JPEG in one
 * strip (YCbCr or grey, 8-bit), the kind alone as the ImageDescription. Only the directory is read here; the strip is
 * read when the image is asked for. Aperio SVS files name theirs on the description's second line (OpenSlide reads
 * those), so only the plain pyramid layout is looked at.
 */
#include "tiff_pyramid_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether `text` can name an associated image: 1-64 ASCII letters, digits, '-' and '_' (Slicing's isKeepable). */
static int tiler_tiff_is_kind(const char *text) {
    size_t length = strlen(text);
    if (length == 0 || length > 64) return 0;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return 0;
    }
    return 1;
}

/* Whether the current directory is a JPEG image of one strip, 8-bit YCbCr or grey, whose strip lies within the file. */
static int tiler_tiff_is_jpeg_strip(const tiler_tiff_pyramid *p, TIFF *tif, uint64_t *offset, uint64_t *length) {
    uint16_t compression = 0, photometric = 0, bits = 0, samples = 0, planar = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) return 0;
    int colour = (photometric == PHOTOMETRIC_YCBCR && samples == 3) || (photometric == PHOTOMETRIC_MINISBLACK && samples == 1);
    if (compression != COMPRESSION_JPEG || bits != 8 || planar != PLANARCONFIG_CONTIG || !colour || TIFFNumberOfStrips(tif) != 1) return 0;
    uint64_t *offsets = NULL, *counts = NULL;
    if (!TIFFGetField(tif, TIFFTAG_STRIPOFFSETS, &offsets) || !TIFFGetField(tif, TIFFTAG_STRIPBYTECOUNTS, &counts) || offsets == NULL ||
        counts == NULL)
        return 0;
    if (counts[0] < 4 || counts[0] > TILER_TIFF_PYRAMID_MAX_ASSOCIATED_BYTES || offsets[0] > p->file_size ||
        counts[0] > p->file_size - offsets[0])
        return 0;
    *offset = offsets[0];
    *length = counts[0];
    return 1;
}

void tiler_tiff_note_associated(tiler_tiff_pyramid *p, TIFF *tif) {
    if (p->layout != TILER_TIFF_LAYOUT_PYRAMID || TIFFIsTiled(tif) || p->associated_count >= TILER_TIFF_PYRAMID_MAX_ASSOCIATED) return;
    uint32_t type = 0, width = 0, height = 0;
    const char *description = NULL;
    TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &type);
    if ((type & FILETYPE_REDUCEDIMAGE) == 0 || !TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) || description == NULL ||
        !tiler_tiff_is_kind(description))
        return;
    for (int i = 0; i < p->associated_count; i++) {
        if (strcmp(p->associated[i].kind, description) == 0) return; /* the first of a kind */
    }
    uint64_t offset = 0, length = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height) || width == 0 || height == 0 ||
        !tiler_tiff_is_jpeg_strip(p, tif, &offset, &length))
        return;
    tiler_tiff_associated_entry *entry = &p->associated[p->associated_count];
    memset(entry, 0, sizeof *entry);
    uint32_t tables_length = 0;
    const unsigned char *tables = NULL;
    if (TIFFGetField(tif, TIFFTAG_JPEGTABLES, &tables_length, &tables) && tables != NULL && tables_length >= 4) {
        entry->tables = malloc(tables_length);
        if (entry->tables == NULL) return; /* left out, as a damaged one would be */
        memcpy(entry->tables, tables, tables_length);
        entry->info.tables_length = tables_length;
    }
    strcpy(entry->kind, description);
    entry->info.kind = entry->kind;
    entry->info.tables = entry->tables;
    entry->info.width = width;
    entry->info.height = height;
    entry->info.offset = offset;
    entry->info.length = length;
    p->associated_count++;
}

int tiler_tiff_pyramid_associated_count(const tiler_tiff_pyramid *p) { return p->associated_count; }

void tiler_tiff_pyramid_get_associated(const tiler_tiff_pyramid *p, int index, tiler_tiff_associated *image) {
    *image = p->associated[index].info;
}
