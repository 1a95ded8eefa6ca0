/*
 * CTIFF: the only code in Tiler that includes tiffio.h.
 *
 * libtiff reports problems through error and warning handlers that, by default, print to stderr. Every
 * TIFF here is opened with per-file handlers (TIFFOpenOptions…ExtR) that collect the first error into
 * the reader's message and pass warnings to the caller's callback; the process-wide handlers are
 * silenced once as well, so nothing ever reaches the terminal behind the caller's back. Nothing here
 * calls exit or abort. Objects are single-threaded: use one per thread. Symbols are prefixed tiler_tiff_.
 */
#ifndef CTIFF_H
#define CTIFF_H

#include <stddef.h>
#include <stdint.h>

/* Status codes, numbered as in CPNG and CJPEG. */
#define TILER_TIFF_OK 0
#define TILER_TIFF_ERR_CORRUPT 1     /* the data is malformed; message is libtiff's */
#define TILER_TIFF_ERR_TRUNCATED 2   /* a strip or tile lies past the end of the file */
#define TILER_TIFF_ERR_NOMEM 3       /* an allocation failed */
#define TILER_TIFF_ERR_IO 4          /* a read failed */
#define TILER_TIFF_ERR_ARGUMENT 5    /* e.g. a page that does not exist */
#define TILER_TIFF_ERR_UNSUPPORTED 6 /* a valid TIFF Tiler does not decode (message says what) */

/* How rows are produced. */
#define TILER_TIFF_PATH_SCANLINES 0 /* contiguous strips, one decoded row at a time */
#define TILER_TIFF_PATH_STRIPS 1    /* separate planes: one strip of every plane at a time */
#define TILER_TIFF_PATH_TILES 2     /* one row of tiles (every plane) at a time */
#define TILER_TIFF_PATH_RGBA 3      /* libtiff's RGBA interface (YCbCr without JPEG, CIE L*a*b*, LogLuv) */

/* Alpha in extra samples. */
#define TILER_TIFF_ALPHA_NONE 0
#define TILER_TIFF_ALPHA_ASSOCIATED 1   /* premultiplied: delivered unpremultiplied */
#define TILER_TIFF_ALPHA_UNASSOCIATED 2 /* including an unspecified extra sample taken as alpha */

typedef void (*tiler_tiff_warning_fn)(void *context, const char *message);

/* What the chosen page's directory says, read without decoding any pixels. */
typedef struct tiler_tiff_header {
    uint32_t width;
    uint32_t height;
    int bits_per_sample;   /* 1, 2, 4, 8 or 16 */
    int samples_per_pixel;
    int photometric;       /* TIFF PhotometricInterpretation */
    int compression;       /* TIFF Compression */
    const char *compression_name; /* libtiff's codec name, or "unknown"; static */
    int predictor;         /* 1 none, 2 horizontal, 3 floating point */
    int planar;            /* 1 contiguous, 2 separate */
    int tiled;
    uint32_t tile_width;   /* tiled only */
    uint32_t tile_height;
    uint32_t rows_per_strip; /* striped only */
    int alpha;             /* TILER_TIFF_ALPHA_* */
    int big_tiff;
    int page;              /* the directory being read, from 0 */
    int pages;             /* directories in the main chain */
    int reduced;           /* NewSubfileType says reduced-resolution */
    int subifds;           /* SubIFDs (reduced resolutions) hanging off this page */
    int orientation;       /* 1–8, or 0 when the tag is absent */
    int path;              /* TILER_TIFF_PATH_* */
    int out_channels;      /* channels of the 8-bit rows read_rows delivers (1–4) */
    const unsigned char *icc; /* ICC profile or NULL; owned by the reader */
    uint32_t icc_length;
} tiler_tiff_header;

typedef struct tiler_tiff_reader tiler_tiff_reader;

/*
 * Opens the TIFF on a duplicate of `fd` (the caller keeps and closes `fd`); the file must be seekable.
 * lenient = 1 turns a strip or tile that fails to decode into zero rows and a warning, and libjpeg's
 * "Corrupt JPEG data" warnings into warnings; lenient = 0 makes both errors. Returns NULL only if memory
 * runs out; a file libtiff cannot open is reported by read_header.
 */
tiler_tiff_reader *tiler_tiff_reader_create(int fd, int lenient, tiler_tiff_warning_fn warn, void *warn_context);

/*
 * Opens page `page` (from 0), or the first full-resolution page when page < 0, and fills `header`.
 * Refuses what read_rows could not deliver (float or signed samples, 32-bit, old-style JPEG, codecs
 * this libtiff lacks) with TILER_TIFF_ERR_UNSUPPORTED. Call once, before read_rows. Allocates no pixels.
 */
int tiler_tiff_reader_read_header(tiler_tiff_reader *reader, int page, tiler_tiff_header *header);

/*
 * Delivers up to `count` rows of 8-bit samples (out_channels per pixel, top to bottom as stored) at dst,
 * dst + stride, ... 16-bit samples are rounded to 8 bits as libpng's png_set_scale_16 does; palette
 * images come out RGB, CMYK as RGB by the naive (1−C)(1−K) formula (no profile), associated alpha is
 * unpremultiplied. Memory: one row (contiguous strips) or one tile-row / strip of every plane.
 * Sets *rows_done; after an error every later call fails with the same error.
 */
int tiler_tiff_reader_read_rows(tiler_tiff_reader *reader, unsigned char *dst, size_t stride, uint32_t count,
                                uint32_t *rows_done);

/*
 * How many rows a band holds when read_rows can decode it straight into rows `stride` bytes apart (8-bit contiguous
 * gray/RGB/RGBA with nothing to convert, tiles or contiguous strips): a read_rows call that starts at a multiple of
 * it and asks for at least that many rows (or the rest of the image) skips the band buffer and its copy. 0 when
 * every band goes through the buffer. After read_header (and keep_source, when used); opens the decoding threads'
 * handles if read_rows has not yet.
 */
uint32_t tiler_tiff_reader_direct_rows(tiler_tiff_reader *reader, size_t stride);

/*
 * After read_header and before the first read_rows, so a colour profile can convert the stored numbers: deliver
 * each pixel's colour samples in the source's own model (gray, RGB — palette looked up —, or CMYK ink, 4 samples)
 * followed by alpha, with 16-bit samples kept as 16 bits, big-endian (2 bytes each). Min-is-white is still inverted
 * and associated alpha still undone. Not available on the RGBA path (TILER_TIFF_ERR_ARGUMENT); returns the bytes
 * per sample (1 or 2) through *bytes_per_sample.
 */
int tiler_tiff_reader_keep_source(tiler_tiff_reader *reader, int *bytes_per_sample);

/* The message of the last error (empty if none). */
const char *tiler_tiff_reader_message(const tiler_tiff_reader *reader);

/* The image row being decoded when the last error happened, or -1. */
int64_t tiler_tiff_reader_error_row(const tiler_tiff_reader *reader);

/* Closes the TIFF and frees everything (accepts NULL). */
void tiler_tiff_reader_destroy(tiler_tiff_reader *reader);

/* Whether this libtiff decodes `compression` (e.g. 50000 ZSTD, 34925 LZMA, 50001 WebP). */
int tiler_tiff_codec_configured(int compression);

/* ---- Test-fixture writer (the tests make every TIFF variant with libtiff itself) ---- */

/* One page. Samples come interleaved (contiguous), rows packed at bits_per_sample (16-bit native order). */
typedef struct tiler_tiff_test_page {
    uint32_t width;
    uint32_t height;
    int samples_per_pixel;
    int bits_per_sample;
    int photometric;
    int planar;          /* 1 contiguous, 2 separate (the writer splits the planes) */
    int compression;
    int predictor;       /* 0 = leave unset */
    int jpeg_quality;    /* JPEG only */
    int jpeg_rgb;        /* JPEG only: photometric RGB stored as YCbCr with JPEGCOLORMODE RGB */
    int tiled;
    uint32_t tile_width;
    uint32_t tile_height;
    uint32_t rows_per_strip; /* 0 = libtiff's default */
    int extra_sample;    /* -1 none, else EXTRASAMPLE_* for the last sample */
    int orientation;     /* 0 = unset */
    int subfile_type;    /* NewSubfileType */
    int sample_format;   /* 0 = unset (unsigned), else SAMPLEFORMAT_* (samples are written as given) */
    const uint16_t *colormap; /* 3 × 2^bits entries (R…, G…, B…) for palette images */
    const unsigned char *icc;
    uint32_t icc_length;
    const unsigned char *rows; /* height rows of row_bytes */
    size_t row_bytes;
} tiler_tiff_test_page;

/* Writes `count` pages to `path` ("w" classic or "w8" BigTIFF). On failure fills message. */
int tiler_tiff_write_test(const char *path, int big_tiff, const tiler_tiff_test_page *pages, int count, char *message,
                          size_t message_capacity);

/* ---- Pyramidal TIFF: random access to stored tiles, from several threads at once ---- */

/* A valid TIFF that is not a tiled pyramid (striped, one resolution, levels not shrinking): serve it some other way. */
#define TILER_TIFF_ERR_NOT_PYRAMID 7

/* Where the reduced resolutions are. */
#define TILER_TIFF_LAYOUT_PYRAMID 0 /* following IFDs marked reduced-resolution (vips --pyramid, COG) */
#define TILER_TIFF_LAYOUT_SUBIFDS 1 /* SubIFDs of IFD 0 (OME-TIFF, vips --subifd) */
#define TILER_TIFF_LAYOUT_APERIO 2  /* Aperio SVS: further tiled IFDs, thumbnail, label and macro skipped */

/* One stored level as tiles are delivered. */
typedef struct tiler_tiff_level {
    uint32_t width;        /* pixels */
    uint32_t height;
    uint32_t tile_width;   /* pixels */
    uint32_t tile_height;
    uint32_t columns;      /* tiles across */
    uint32_t rows;         /* tiles down */
    int compression;       /* TIFF Compression */
    int channels;          /* 8-bit samples per decoded pixel: 1 gray, 3 RGB, 4 RGBA */
    int jpeg_pass_through; /* stored tiles are JPEG that jpeg_tile can hand out as they are */
    int jpeg_rgb;          /* JPEG data stored as RGB (not YCbCr): jpeg_tile adds an Adobe APP14 marker */
} tiler_tiff_level;

/* What the pyramid holds, beyond its levels. Pointers are owned by the pyramid. */
typedef struct tiler_tiff_pyramid_info {
    int layout;              /* TILER_TIFF_LAYOUT_* */
    int level_count;         /* 2 or more; level 0 is the full resolution */
    int big_tiff;
    const unsigned char *icc; /* IFD 0's ICC profile, or NULL */
    uint32_t icc_length;
    const char *description; /* IFD 0's ImageDescription, or NULL */
    uint64_t file_size;      /* bytes, when opened */
    double x_resolution;     /* IFD 0's XResolution and YResolution, pixels per resolution unit; 0 when absent */
    double y_resolution;
    int resolution_unit;     /* ResolutionUnit: 1 none, 2 inch (the default), 3 centimetre */
} tiler_tiff_pyramid_info;

typedef struct tiler_tiff_pyramid tiler_tiff_pyramid;

/*
 * Reads the directories of the TIFF open on `fd` (taking ownership: it is closed by destroy, or here on failure) and
 * finds its levels; no tile data is read. Loads every level's TileOffsets, TileByteCounts and JPEGTables, so jpeg_tile
 * needs no libtiff. Returns TILER_TIFF_OK and *out, or an error code (TILER_TIFF_ERR_NOT_PYRAMID, _UNSUPPORTED,
 * _CORRUPT, _TRUNCATED, _NOMEM, _IO) with a one-line message.
 */
int tiler_tiff_pyramid_open(int fd, tiler_tiff_pyramid **out, char *message, size_t capacity);

/* The pyramid's facts. */
void tiler_tiff_pyramid_get_info(const tiler_tiff_pyramid *pyramid, tiler_tiff_pyramid_info *info);

/* Level `index` (0 ..< level_count), finest first. */
void tiler_tiff_pyramid_get_level(const tiler_tiff_pyramid *pyramid, int index, tiler_tiff_level *level);

/*
 * An upper bound of the bytes jpeg_tile writes for tile (column, row) of `level`, from the tables alone (no read).
 * Returns 0 or TILER_TIFF_ERR_ARGUMENT (no such tile, or the level is not pass-through) with message.
 */
int tiler_tiff_pyramid_jpeg_bound(const tiler_tiff_pyramid *pyramid, int level, int column, int row, size_t *bound, char *message,
                                  size_t capacity);

/*
 * The stored JPEG tile as a standalone JPEG file: JPEGTables (without EOI) + the tile (without SOI), with an Adobe APP14
 * marker (transform 0) after SOI when the data is RGB. Reads the tile with pread; no libtiff, no decoding; thread-safe.
 * Checks the marker structure up to the scan (not the entropy-coded data). Writes *length ≤ capacity bytes at dst.
 */
int tiler_tiff_pyramid_jpeg_tile(const tiler_tiff_pyramid *pyramid, int level, int column, int row, unsigned char *dst,
                                 size_t capacity, size_t *length, char *message, size_t capacity_message);

/* TILER_TIFF_WOULD_BLOCK: with nowait, the tile's bytes are not all in the page cache (nothing was waited for). */
#define TILER_TIFF_WOULD_BLOCK 8

/*
 * jpeg_tile, but with nowait set the read does not wait for the disk (preadv2 with RWF_NOWAIT): TILER_TIFF_WOULD_BLOCK
 * when the bytes are not in the page cache (or the kernel cannot tell), so an event loop can serve cached tiles at once.
 */
int tiler_tiff_pyramid_jpeg_tile_nowait(const tiler_tiff_pyramid *pyramid, int level, int column, int row, int nowait,
                                        unsigned char *dst, size_t capacity, size_t *length, char *message, size_t capacity_message);

/*
 * The bytes jpeg_tile puts before a tile of `level`'s stored bytes (from the second on): SOI, the Adobe APP14 marker
 * when the data is RGB, the level's JPEGTables without SOI and EOI. Sets *length to their count; returns 0, or
 * TILER_TIFF_ERR_ARGUMENT (no such level, or capacity too small: nothing written).
 */
int tiler_tiff_pyramid_jpeg_prefix(const tiler_tiff_pyramid *pyramid, int level, unsigned char *dst, size_t capacity, size_t *length);

/*
 * Where jpeg_tile's bytes after the prefix lie in the file, to be sent from it as they are (sendfile): the tile from
 * its second byte (after SOI) to its end, *length bytes at *offset. Checks the tile as jpeg_tile does (its markers up
 * to the scan, its EOI) from its first 2 KiB and last 64 bytes (the whole tile when that is not enough), once per
 * opening: a tile found sound is remembered (a bit a tile) and not read again. Thread-safe.
 */
int tiler_tiff_pyramid_jpeg_region(const tiler_tiff_pyramid *pyramid, int level, int column, int row, uint64_t *offset,
                                   uint64_t *length, char *message, size_t capacity);

/*
 * An associated image the pyramid keeps as a directory of its own after its levels (tiff_pyramid_associated.c): a
 * slide's label, macro or thumbnail as `tiler slice --container tiff` stores them. Its one strip is a JPEG file, or an
 * abbreviated one to follow `tables` (JPEGTables, SOI … EOI) when they are given. Pointers are owned by the pyramid.
 */
typedef struct tiler_tiff_associated {
    const char *kind;             /* the directory's ImageDescription: 1-64 ASCII letters, digits, '-' and '_' */
    uint32_t width, height;       /* pixels */
    uint64_t offset, length;      /* the strip's bytes in the file (within it when opened) */
    const unsigned char *tables;  /* JPEGTables, or NULL */
    uint32_t tables_length;
} tiler_tiff_associated;

/* How many associated images the pyramid keeps (none outside TILER_TIFF_LAYOUT_PYRAMID). */
int tiler_tiff_pyramid_associated_count(const tiler_tiff_pyramid *pyramid);

/* Associated image `index` (0 ..< associated_count), in file order. */
void tiler_tiff_pyramid_get_associated(const tiler_tiff_pyramid *pyramid, int index, tiler_tiff_associated *image);

/* The pyramid's open descriptor (owned by the pyramid; duplicate it to keep it). */
int tiler_tiff_pyramid_descriptor(const tiler_tiff_pyramid *pyramid);

/*
 * Decodes tile (column, row) of `level` into dst: tile_height rows of tile_width × channels 8-bit samples (edge tiles as
 * stored, padded). capacity must be at least that. Min-is-white is inverted, associated alpha undone, gray+alpha made
 * RGBA; no colour management. Thread-safe: uses one of a few libtiff handles, waiting when all are busy. libjpeg's
 * "corrupt data" warnings are errors.
 */
int tiler_tiff_pyramid_decode_tile(tiler_tiff_pyramid *pyramid, int level, int column, int row, unsigned char *dst, size_t capacity,
                                   char *message, size_t capacity_message);

/* Closes the descriptor and every handle, frees everything (accepts NULL). No call may be running. */
void tiler_tiff_pyramid_destroy(tiler_tiff_pyramid *pyramid);

/*
 * Messages that reach libtiff's process-wide handlers: those of the few codecs that bypass a handle's own handlers, and
 * OpenSlide's libtiff handles. tiler_tiff_route_stray_messages installs (once, for the process) handlers that print
 * nothing: they count every message and keep an error's text for the thread it happened on, which
 * tiler_tiff_take_stray_error returns (and clears; "" when none). Every CTIFF open and every slide open installs them.
 * tiler_tiff_count_stray_messages is the same installation, for tests that count.
 */
void tiler_tiff_route_stray_messages(void);
void tiler_tiff_count_stray_messages(void);
long tiler_tiff_stray_messages(void);
const char *tiler_tiff_take_stray_error(void);

/* Pyramids that are no local file (an object in a store), read through the caller's function. */
#include "CTIFFSource.h"

#endif
