/*
 * CJPEG: the only code in Tiler that includes jpeglib.h.
 *
 * libjpeg reports errors by calling error_exit, whose default calls exit(); here it longjmps back
 * to a setjmp each entry point sets (Swift cannot host setjmp), and the error becomes a status code
 * plus libjpeg's own message, which the Swift side throws. libjpeg's recoverable warnings ("Corrupt
 * JPEG data: ...", "Premature end of JPEG file") are errors unless the reader is lenient. Nothing
 * here calls exit or abort, prints, or leaks on an error path. Objects are single-threaded: use one
 * per thread. Every exported symbol is prefixed tiler_jpeg_.
 */
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Status codes returned by every fallible entry point. */
#define TILER_JPEG_OK 0
#define TILER_JPEG_ERR_CORRUPT 1   /* the data is malformed; message is libjpeg's */
#define TILER_JPEG_ERR_TRUNCATED 2 /* the file ended early ("Premature end of JPEG file") */
#define TILER_JPEG_ERR_NOMEM 3     /* an allocation failed */
#define TILER_JPEG_ERR_IO 4        /* a read or write failed */
#define TILER_JPEG_ERR_ARGUMENT 5  /* the caller asked for something unsupported */

/* Colour spaces of the stored JPEG data (same numbering as libjpeg's J_COLOR_SPACE). */
#define TILER_JPEG_CS_UNKNOWN 0
#define TILER_JPEG_CS_GRAY 1
#define TILER_JPEG_CS_RGB 2
#define TILER_JPEG_CS_YCBCR 3
#define TILER_JPEG_CS_CMYK 4
#define TILER_JPEG_CS_YCCK 5

/* Chroma subsampling for the encoder. */
#define TILER_JPEG_SUBSAMPLING_444 0
#define TILER_JPEG_SUBSAMPLING_422 1
#define TILER_JPEG_SUBSAMPLING_420 2

/* Called with a warning a lenient reader let pass. */
typedef void (*tiler_jpeg_warning_fn)(void *context, const char *message);

/* What the header says, read without decoding any pixels. */
typedef struct tiler_jpeg_header {
    uint32_t width;
    uint32_t height;
    int components;      /* stored components (1, 3 or 4) */
    int color_space;     /* TILER_JPEG_CS_* of the stored data */
    int precision;       /* bits per sample (8) */
    int progressive;     /* 1 for a progressive (SOF2) file */
    int saw_adobe;       /* an Adobe APP14 marker was present (CMYK data is then stored inverted) */
    int h_samp[4];       /* sampling factors per component */
    int v_samp[4];
    int out_channels;    /* channels of the rows read_rows delivers: 1 (gray) or 3 (RGB) */
    const unsigned char *exif; /* APP1 Exif payload after "Exif\0\0" (TIFF header onwards) or NULL */
    size_t exif_length;
} tiler_jpeg_header;

/* ---- Streaming reader ---- */

typedef struct tiler_jpeg_reader tiler_jpeg_reader;

/*
 * Creates a reader over `fp`, positioned at the SOI marker and owned by the caller (close it after
 * tiler_jpeg_reader_destroy). lenient = 0 makes libjpeg's warnings errors; 1 passes them to `warn`.
 * Returns NULL only if memory runs out.
 */
tiler_jpeg_reader *tiler_jpeg_reader_create(FILE *fp, int lenient, tiler_jpeg_warning_fn warn, void *warn_context);

/* Reads the markers up to the first scan. Call once, before read_rows. */
int tiler_jpeg_reader_read_header(tiler_jpeg_reader *reader, tiler_jpeg_header *header);

/*
 * Delivers up to `count` rows of 8-bit gray or RGB (CMYK and YCCK converted to RGB) at dst,
 * dst + stride, ... Sets *rows_done (fewer than count only at the end of the image or on error).
 * The first call starts decompression (a progressive file is read whole then).
 * After an error every later call fails with the same error.
 */
int tiler_jpeg_reader_read_rows(tiler_jpeg_reader *reader, unsigned char *dst, size_t stride, uint32_t count,
                                uint32_t *rows_done);

/*
 * The payload of the `index`-th (0-based) APPn marker with n = `app` (1 or 2) before the first scan. Returns 1 and
 * sets *data / *length (owned by the reader), or 0 when there are no more. ICC profiles arrive in APP2 markers.
 */
int tiler_jpeg_reader_marker(const tiler_jpeg_reader *reader, int app, size_t index, const unsigned char **data,
                             size_t *length);

/*
 * After read_header and before the first read_rows, for a CMYK or YCCK file: deliver the 4 stored CMYK samples
 * per pixel (inverted when header.saw_adobe) instead of converting them to RGB, so a profile can convert them.
 */
int tiler_jpeg_reader_keep_cmyk(tiler_jpeg_reader *reader);

/*
 * After read_header and before the first read_rows: decode at 1/`denominator` of the size (1, 2, 4 or 8) with
 * libjpeg's DCT scaling (scale_num/scale_denom), which skips most of the inverse DCT. Sets *width and *height to the
 * rows' size then: ceil(width / denominator) × ceil(height / denominator).
 */
int tiler_jpeg_reader_set_scale(tiler_jpeg_reader *reader, unsigned denominator, uint32_t *width, uint32_t *height);

/*
 * Before the first read_rows: whether a large sequential JPEG without upsampling may be decoded on two threads
 * (entropy decoding on one of the reader's own, the inverse DCT and colour conversion on the caller's; the same rows,
 * see jpeg_pipeline.c). Allowed by default; a lenient reader never is (its warnings must reach `warn` on the caller's
 * thread).
 */
int tiler_jpeg_reader_set_pipelined(tiler_jpeg_reader *reader, int allowed);

/* The message of the last error (empty if none). */
const char *tiler_jpeg_reader_message(const tiler_jpeg_reader *reader);

/* The output row reached when the last error happened, or -1 if it was not while decoding rows. */
int64_t tiler_jpeg_reader_error_row(const tiler_jpeg_reader *reader);

/* Frees everything the reader owns (not the FILE). Accepts NULL. */
void tiler_jpeg_reader_destroy(tiler_jpeg_reader *reader);

/* ---- Tile encoder ---- */

typedef struct tiler_jpeg_encoder tiler_jpeg_encoder;

/*
 * quality 1–100; optimize: 1 for optimised Huffman tables; subsampling TILER_JPEG_SUBSAMPLING_*.
 * Returns NULL only if memory runs out. The compressor and its output buffer are reused per encode.
 */
tiler_jpeg_encoder *tiler_jpeg_encoder_create(int quality, int optimize, int subsampling);

/*
 * Encodes 8-bit rows at base, `stride` bytes apart. channels: 1 gray, 2 gray+alpha (alpha dropped),
 * 3 RGB, 4 RGBA (alpha dropped). On success *out / *out_length describe the JPEG file, valid until
 * the next call on the encoder.
 */
int tiler_jpeg_encode(tiler_jpeg_encoder *encoder, const unsigned char *base, uint32_t width, uint32_t height,
                      size_t stride, int channels, const unsigned char **out, size_t *out_length);

/* The message of the last error. */
const char *tiler_jpeg_encoder_message(const tiler_jpeg_encoder *encoder);

/* Accepts NULL. */
void tiler_jpeg_encoder_destroy(tiler_jpeg_encoder *encoder);

/* ---- Streaming file writer (whole images, rows a strip at a time) ---- */

typedef struct tiler_jpeg_file_writer tiler_jpeg_file_writer;

/*
 * Creates `path` and starts a JPEG of width × height, channels 1 (gray) or 3 (RGB), quality 1–100,
 * subsampling TILER_JPEG_SUBSAMPLING_*, progressive 0/1. Returns NULL with a message on failure.
 */
tiler_jpeg_file_writer *tiler_jpeg_file_writer_create(const char *path, uint32_t width, uint32_t height, int channels,
                                                      int quality, int subsampling, int progressive, char *message,
                                                      size_t message_capacity);

/* Writes `count` rows at base, base + stride, ... */
int tiler_jpeg_file_writer_write_rows(tiler_jpeg_file_writer *writer, const unsigned char *base, size_t stride,
                                      uint32_t count);

/* Writes the end of the file and flushes it. Call once after the last row. */
int tiler_jpeg_file_writer_finish(tiler_jpeg_file_writer *writer);

/* The message of the last error. */
const char *tiler_jpeg_file_writer_message(const tiler_jpeg_file_writer *writer);

/* Closes the file and frees the writer (accepts NULL); returns fclose's result. */
int tiler_jpeg_file_writer_destroy(tiler_jpeg_file_writer *writer);

/* ---- Test-fixture writer (used by the tests to produce every JPEG variant) ---- */

typedef struct tiler_jpeg_test_image {
    uint32_t width;
    uint32_t height;
    int components;               /* input samples per pixel: 1 gray, 3 RGB, 4 CMYK (as stored) */
    const unsigned char *pixels;  /* height rows, stride bytes apart */
    size_t stride;
    int color_space;              /* TILER_JPEG_CS_* to store: GRAY, RGB, YCBCR, CMYK or YCCK */
    int h_samp;                   /* sampling factors of component 0 (and K for YCCK); others are 1 */
    int v_samp;
    int progressive;
    int quality;
    int adobe_marker;             /* -1 libjpeg's default, 0 omit, 1 write */
    const unsigned char *exif;    /* APP1 Exif payload (TIFF header onwards) or NULL */
    uint32_t exif_length;
} tiler_jpeg_test_image;

/* Writes `image` to `path`. On failure writes a message into message[0..<message_capacity]. */
int tiler_jpeg_write_test(const char *path, const tiler_jpeg_test_image *image, char *message,
                          size_t message_capacity);


/* ---- Regions of a JPEG with restart markers (jpeg_restart.c) ---- */

/* Where each restart interval of one JPEG file begins, found once; any number of threads may read regions through one
 * index at once (its mapping is the only thing that changes, under a lock). */
typedef struct tiler_jpeg_restart_index tiler_jpeg_restart_index;

/* Indexes the JPEG at path (one pass over its bytes) and maps it. TILER_JPEG_ERR_ARGUMENT when it is not a JPEG this reads
 * (progressive, subsampled, no restart markers, intervals not tiling the image): read it another way. */
int tiler_jpeg_restart_index_create(const char *path, tiler_jpeg_restart_index **index, char *message, size_t message_size);
void tiler_jpeg_restart_index_free(tiler_jpeg_restart_index *index);
/* The image's size, a restart interval's width (pixels, full scale) and its components (1 or 3). */
void tiler_jpeg_restart_index_geometry(const tiler_jpeg_restart_index *index, int32_t *width, int32_t *height, int32_t *interval_width,
                                       int32_t *components);
/* Decodes the region (x, y, width × height) of the image scaled by 1/scale_denom (1, 2, 4 or 8; coordinates in scaled
 * pixels) from the indexed file (mapped when it was indexed) into rgb, RGB rows stride bytes apart (grey is spread to
 * RGB). One copy per MCU row of intervals under the region, one decode, no system call; TILER_JPEG_ERR_IO when the file
 * has shrunk since it was indexed. */
int tiler_jpeg_restart_read(tiler_jpeg_restart_index *index, int32_t scale_denom, int32_t x, int32_t y, int32_t width,
                            int32_t height, uint8_t *rgb, size_t stride, char *message, size_t message_size);
/* At most `maps` indexed JPEGs stay mapped at once (0: the default, a quarter of vm.max_map_count); the least recently
 * read are unmapped first, and mapped again when read, if still the file indexed (else TILER_JPEG_ERR_IO). */
void tiler_jpeg_restart_set_map_budget(size_t maps);
/* How many indexed JPEGs are mapped now, the budget, and how many mappings the budget has undone so far. */
void tiler_jpeg_restart_map_statistics(size_t *mapped, size_t *budget, uint64_t *unmapped);

#endif
