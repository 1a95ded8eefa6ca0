/*
 * Choosing the page and deciding how to deliver it: every combination read_rows cannot turn into 8-bit
 * gray/RGB(+alpha) rows is refused here, before any pixel memory exists, with a message naming it.
 */
#include "tiff_reader_internal.h"

#include <stdlib.h>
#include <string.h>

/* Turns the error libtiff reported (or `fallback`) into the reader's error; truncation gets its own code. */
int tiler_tiff_library_failure(tiler_tiff_reader *r, const char *fallback) {
    const char *text = r->library_error[0] != 0 ? r->library_error : fallback;
    int code = TILER_TIFF_ERR_CORRUPT;
    if (strstr(text, "Read error") != NULL || strstr(text, "Cannot read") != NULL || strstr(text, "Can not read") != NULL ||
        strstr(text, "Seek error") != NULL || strstr(text, "end of file") != NULL || strstr(text, "past end") != NULL) {
        code = TILER_TIFF_ERR_TRUNCATED;
    }
    tiler_tiff_fail(r, code, "%s", text);
    r->library_error[0] = 0;
    return r->code;
}

/* The first page whose NewSubfileType is not reduced-resolution (a pyramid's full-size image), else 0. */
static int tiler_tiff_full_resolution_page(tiler_tiff_reader *r, int pages) {
    for (int page = 0; page < pages; page++) {
        if (!TIFFSetDirectory(r->tif, (tdir_t)page)) return 0;
        uint32_t type = 0;
        if (!TIFFGetField(r->tif, TIFFTAG_SUBFILETYPE, &type) || (type & FILETYPE_REDUCEDIMAGE) == 0) return page;
    }
    return 0;
}

static int tiler_tiff_check_samples(tiler_tiff_reader *r) {
    uint16_t format = SAMPLEFORMAT_UINT;
    TIFFGetFieldDefaulted(r->tif, TIFFTAG_SAMPLEFORMAT, &format);
    if (format == SAMPLEFORMAT_IEEEFP) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "%d-bit floating-point samples are not supported", r->bps);
    } else if (format == SAMPLEFORMAT_INT) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "signed %d-bit integer samples are not supported", r->bps);
    } else if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "sample format %d is not supported", format);
    } else if (r->bps != 1 && r->bps != 2 && r->bps != 4 && r->bps != 8 && r->bps != 16) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "%d-bit samples are not supported (1, 2, 4, 8 and 16 are)", r->bps);
    } else if (r->spp < 1) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "SamplesPerPixel is 0");
    }
    return r->code;
}

static int tiler_tiff_check_compression(tiler_tiff_reader *r, int compression) {
    if (compression == COMPRESSION_OJPEG) {
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "old-style JPEG compression (6) is not supported");
    } else if (!TIFFIsCODECConfigured((uint16_t)compression)) {
        const TIFFCodec *codec = TIFFFindCODEC((uint16_t)compression);
        tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "compression %d (%s) is not supported by this libtiff", compression,
                        codec != NULL ? codec->name : "unknown");
    }
    return r->code;
}

/* Sets kind, alpha and out_channels from the photometric interpretation; the RGBA path for the rest. */
static int tiler_tiff_choose_kind(tiler_tiff_reader *r, int compression) {
    int color = 1;
    if (compression == COMPRESSION_JPEG && r->photometric == PHOTOMETRIC_YCBCR) {
        /* libjpeg converts YCbCr (any subsampling) to RGB while decoding. */
        TIFFSetField(r->tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        r->jpeg_rgb = 1;
        r->photometric = PHOTOMETRIC_RGB;
    }
    switch (r->photometric) {
    case PHOTOMETRIC_MINISWHITE: r->white_is_zero = 1; /* fall through */
    case PHOTOMETRIC_MINISBLACK: r->kind = TILER_KIND_GRAY; break;
    case PHOTOMETRIC_RGB: r->kind = TILER_KIND_RGB; color = 3; break;
    case PHOTOMETRIC_PALETTE:
        r->kind = TILER_KIND_PALETTE;
        if (!TIFFGetField(r->tif, TIFFTAG_COLORMAP, &r->colormap[0], &r->colormap[1], &r->colormap[2])) {
            return tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "palette image without a ColorMap"), r->code;
        }
        if (r->bps > 8) return tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "%d-bit palette images are not supported", r->bps), r->code;
        r->colormap_8bit = 1;
        for (int i = 0; i < (1 << r->bps); i++) {
            if (r->colormap[0][i] > 255 || r->colormap[1][i] > 255 || r->colormap[2][i] > 255) r->colormap_8bit = 0;
        }
        break;
    case PHOTOMETRIC_SEPARATED: {
        uint16_t inks = INKSET_CMYK;
        TIFFGetFieldDefaulted(r->tif, TIFFTAG_INKSET, &inks);
        if (inks != INKSET_CMYK || r->spp < 4) {
            return tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "separated colour other than CMYK is not supported"), r->code;
        }
        r->kind = TILER_KIND_CMYK;
        color = 4;
        break;
    }
    default: {
        char why[1024] = "";
        if (!TIFFRGBAImageOK(r->tif, why)) {
            return tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "photometric interpretation %d is not supported (%s)",
                                   r->photometric, why),
                   r->code;
        }
        r->path = TILER_TIFF_PATH_RGBA;
        return TILER_TIFF_OK;
    }
    }
    if (r->spp < color) {
        return tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "%d samples per pixel are too few for photometric %d", r->spp,
                               r->photometric),
               r->code;
    }
    uint16_t extras = 0;
    uint16_t *types = NULL;
    if (r->spp > color && r->kind != TILER_KIND_PALETTE) {
        r->alpha = TILER_TIFF_ALPHA_UNASSOCIATED;
        if (TIFFGetField(r->tif, TIFFTAG_EXTRASAMPLES, &extras, &types) && extras > 0 && types[0] == EXTRASAMPLE_ASSOCALPHA) {
            r->alpha = TILER_TIFF_ALPHA_ASSOCIATED;
        }
        r->alpha_sample = color;
    }
    r->out_channels = (r->kind == TILER_KIND_GRAY ? 1 : 3) + (r->alpha != TILER_TIFF_ALPHA_NONE ? 1 : 0);
    r->out_samples = r->out_channels;
    r->out_bytes = 1;
    return TILER_TIFF_OK;
}

static int tiler_tiff_choose_path(tiler_tiff_reader *r) {
    uint32_t rows = r->height;
    size_t bytes_per_row = 0;
    if (r->path == TILER_TIFF_PATH_RGBA) {
        char why[1024] = "";
        if (!TIFFRGBAImageBegin(&r->rgba, r->tif, 0, why)) {
            return tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED, "cannot convert this TIFF to RGB: %s", why), r->code;
        }
        r->rgba_started = 1;
        r->rgba.req_orientation = ORIENTATION_TOPLEFT;
        r->rgba.orientation = ORIENTATION_TOPLEFT; /* rows as stored: orientation is the caller's to apply */
        r->alpha = r->rgba.alpha != 0 ? TILER_TIFF_ALPHA_ASSOCIATED : TILER_TIFF_ALPHA_NONE;
        r->out_channels = r->rgba.alpha != 0 ? 4 : 3;
        r->out_samples = r->out_channels;
        r->out_bytes = 1;
        rows = TIFFIsTiled(r->tif) ? r->tile_height : r->rows_per_strip;
        bytes_per_row = (size_t)r->width * 4;
    } else if (TIFFIsTiled(r->tif)) {
        r->path = TILER_TIFF_PATH_TILES;
        rows = r->tile_height;
        bytes_per_row = (size_t)TIFFTileRowSize64(r->tif) * (r->width / r->tile_width + 1) * (r->planar == PLANARCONFIG_SEPARATE ? r->spp : 1);
    } else if (r->planar == PLANARCONFIG_SEPARATE) {
        r->path = TILER_TIFF_PATH_STRIPS;
        rows = r->rows_per_strip;
        bytes_per_row = (size_t)TIFFScanlineSize64(r->tif) * r->spp;
    } else {
        r->path = TILER_TIFF_PATH_SCANLINES;
        rows = 1;
        bytes_per_row = (size_t)TIFFScanlineSize64(r->tif);
    }
    if (rows == 0 || bytes_per_row == 0) return tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "tile or strip size is zero"), r->code;
    if (rows > r->height) rows = r->height;
    if (bytes_per_row > ((size_t)1 << 31) / rows) {
        return tiler_tiff_fail(r, TILER_TIFF_ERR_UNSUPPORTED,
                               "a band of %u rows (one strip or tile row) would need over 2 GiB; rewrite it with tiffcp -r 64 or as tiles",
                               rows),
               r->code;
    }
    r->band_capacity_rows = rows;
    return TILER_TIFF_OK;
}

/* Reads the fields of the current directory into r and header. */
static int tiler_tiff_describe(tiler_tiff_reader *r, tiler_tiff_header *h) {
    TIFF *tif = r->tif;
    uint16_t bps = 1, spp = 1, photometric = 0, compression = 1, planar = 1, predictor = 1, orientation = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &r->width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &r->height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    r->bps = bps;
    r->spp = spp;
    r->photometric = photometric;
    r->planar = planar;
    h->width = r->width;
    h->height = r->height;
    h->bits_per_sample = bps;
    h->samples_per_pixel = spp;
    h->photometric = photometric;
    h->compression = compression;
    const TIFFCodec *codec = TIFFFindCODEC(compression);
    h->compression_name = codec != NULL ? codec->name : "unknown";
    if (compression != COMPRESSION_NONE && TIFFGetField(tif, TIFFTAG_PREDICTOR, &predictor)) h->predictor = predictor;
    else h->predictor = 1;
    h->planar = planar;
    h->tiled = TIFFIsTiled(tif) ? 1 : 0;
    if (h->tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &r->tile_width);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &r->tile_height);
        if (r->tile_width == 0 || r->tile_height == 0) return tiler_tiff_fail(r, TILER_TIFF_ERR_CORRUPT, "tile size is zero"), r->code;
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &r->rows_per_strip);
        if (r->rows_per_strip == 0 || r->rows_per_strip > r->height) r->rows_per_strip = r->height;
        r->strips_per_plane = TIFFNumberOfStrips(tif) / (planar == PLANARCONFIG_SEPARATE ? spp : 1);
    }
    h->tile_width = r->tile_width;
    h->tile_height = r->tile_height;
    h->rows_per_strip = r->rows_per_strip;
    h->big_tiff = TIFFIsBigTIFF(tif) ? 1 : 0;
    uint32_t subfile = 0;
    TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &subfile);
    h->reduced = (subfile & FILETYPE_REDUCEDIMAGE) != 0;
    uint16_t subifd_count = 0;
    void *subifds = NULL;
    if (TIFFGetField(tif, TIFFTAG_SUBIFD, &subifd_count, &subifds)) h->subifds = subifd_count;
    if (TIFFGetField(tif, TIFFTAG_ORIENTATION, &orientation) && orientation >= 1 && orientation <= 8) h->orientation = orientation;
    uint32_t icc_length = 0;
    void *icc = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc != NULL && icc_length > 0) {
        h->icc = icc;
        h->icc_length = icc_length;
    }
    if (r->width == 0 || r->height == 0) return TILER_TIFF_OK; /* the caller reports the zero size */
    if (tiler_tiff_check_samples(r) != TILER_TIFF_OK || tiler_tiff_check_compression(r, compression) != TILER_TIFF_OK) return r->code;
    if (tiler_tiff_choose_kind(r, compression) != TILER_TIFF_OK || tiler_tiff_choose_path(r) != TILER_TIFF_OK) return r->code;
    h->alpha = r->alpha;
    h->path = r->path;
    h->out_channels = r->out_channels;
    return TILER_TIFF_OK;
}

int tiler_tiff_reader_keep_source(tiler_tiff_reader *r, int *bytes_per_sample) {
    if (r->code != TILER_TIFF_OK) return r->code;
    if (!r->header_done || r->path == TILER_TIFF_PATH_RGBA || r->band != NULL || r->next_row > 0) {
        return tiler_tiff_fail(r, TILER_TIFF_ERR_ARGUMENT, "the source's own samples are not available here"), r->code;
    }
    r->keep_source = 1;
    r->out_bytes = r->bps == 16 && r->kind != TILER_KIND_PALETTE ? 2 : 1;
    r->out_samples = (r->kind == TILER_KIND_CMYK ? 4 : r->kind == TILER_KIND_GRAY ? 1 : 3) + (r->alpha != TILER_TIFF_ALPHA_NONE ? 1 : 0);
    *bytes_per_sample = r->out_bytes;
    return TILER_TIFF_OK;
}

int tiler_tiff_reader_read_header(tiler_tiff_reader *r, int page, tiler_tiff_header *h) {
    if (r->code != TILER_TIFF_OK) return r->code;
    if (r->header_done) return tiler_tiff_fail(r, TILER_TIFF_ERR_ARGUMENT, "header already read"), r->code;
    r->header_done = 1;
    if (r->tif == NULL) return tiler_tiff_library_failure(r, "not a readable TIFF file");
    memset(h, 0, sizeof *h);
    int pages = (int)TIFFNumberOfDirectories(r->tif);
    if (pages < 1) pages = 1;
    h->pages = pages;
    if (page >= pages) {
        return tiler_tiff_fail(r, TILER_TIFF_ERR_ARGUMENT, "there is no page %d: the file has %d page%s (0–%d)", page, pages,
                               pages == 1 ? "" : "s", pages - 1),
               r->code;
    }
    if (page < 0) page = tiler_tiff_full_resolution_page(r, pages);
    if (!TIFFSetDirectory(r->tif, (tdir_t)page)) return tiler_tiff_library_failure(r, "cannot read the page's directory");
    h->page = page;
    r->page = page;
    r->library_error[0] = 0;
    if (tiler_tiff_describe(r, h) != TILER_TIFF_OK) return r->code;
    return TILER_TIFF_OK;
}
