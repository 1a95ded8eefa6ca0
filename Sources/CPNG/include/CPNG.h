/*
 * CPNG: the only code in Tiler that includes png.h.
 *
 * libpng reports errors by longjmp, and Swift cannot host setjmp, so every
 * entry point here sets its own setjmp and turns a library error into a status
 * code plus a message the Swift side throws. Nothing here ever calls exit or
 * abort, prints, or leaks on an error path. Objects are single-threaded: use one
 * per thread. Every exported symbol is prefixed tiler_png_.
 */
#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Status codes returned by every fallible entry point. */
#define TILER_PNG_OK 0
#define TILER_PNG_ERR_CORRUPT 1   /* the data is malformed; message is libpng's */
#define TILER_PNG_ERR_TRUNCATED 2 /* the file ended early */
#define TILER_PNG_ERR_NOMEM 3     /* an allocation failed */
#define TILER_PNG_ERR_IO 4        /* a read or write failed (errno in the message) */
#define TILER_PNG_ERR_ARGUMENT 5  /* the caller asked for something unsupported */

/* PNG colour types, as in the IHDR chunk. */
#define TILER_PNG_COLOR_GRAY 0
#define TILER_PNG_COLOR_RGB 2
#define TILER_PNG_COLOR_PALETTE 3
#define TILER_PNG_COLOR_GRAY_ALPHA 4
#define TILER_PNG_COLOR_RGBA 6

/* Called with a warning the decoder chose not to treat as an error. */
typedef void (*tiler_png_warning_fn)(void *context, const char *message);

/* What the header says, read without decoding any pixels. */
typedef struct tiler_png_header {
    uint32_t width;
    uint32_t height;
    int bit_depth;    /* 1, 2, 4, 8 or 16 */
    int color_type;   /* TILER_PNG_COLOR_* */
    int interlaced;   /* 1 for Adam7 */
    int has_trns;     /* a valid tRNS chunk was seen: delivered rows gain an alpha channel */
    int out_channels; /* channels of the 8-bit rows read_rows delivers (1–4) */
    const unsigned char *exif; /* eXIf payload (TIFF header onwards) or NULL; owned by the reader */
    size_t exif_length;
} tiler_png_header;

/* ---- Streaming reader ---- */

typedef struct tiler_png_reader tiler_png_reader;

/*
 * Creates a reader over `fp`, which must be positioned at the PNG signature and stays owned by the
 * caller (close it after tiler_png_reader_destroy). lenient = 0 turns CRC errors and libpng's
 * "benign" errors into errors; lenient = 1 makes them warnings and, after a damaged row, fills the
 * remaining rows with zeros. Returns NULL only if memory runs out.
 */
tiler_png_reader *tiler_png_reader_create(FILE *fp, int lenient, tiler_png_warning_fn warn, void *warn_context);

/* Reads the chunks before the first IDAT. Call once, before read_rows. */
int tiler_png_reader_read_header(tiler_png_reader *reader, tiler_png_header *header);

/*
 * Delivers up to `count` rows of 8-bit samples (out_channels per pixel) at dst, dst + stride, ...
 * Sets *rows_done to the rows written (fewer than count only at the end of the image or on error).
 * The first call sets up the transforms and, for an interlaced image, decodes the whole image.
 * After an error every later call fails with the same error.
 */
int tiler_png_reader_read_rows(tiler_png_reader *reader, unsigned char *dst, size_t stride, uint32_t count,
                               uint32_t *rows_done);

/*
 * After read_header and before the first read_rows: a 16-bit image is delivered with 2-byte big-endian samples
 * (rows twice as wide) instead of being scaled to 8 bits, so a colour conversion can use every bit. No effect on
 * other depths. Returns TILER_PNG_ERR_ARGUMENT when called at the wrong time.
 */
int tiler_png_reader_keep_16(tiler_png_reader *reader);

/*
 * The raw data of the first chunk named `name` (4 letters) among cHRM, gAMA, iCCP and sRGB seen before the image
 * data. Returns 1 and sets *data / *length (owned by the reader), or 0 when there is none.
 */
int tiler_png_reader_chunk(const tiler_png_reader *reader, const char *name, const unsigned char **data,
                           size_t *length);

/*
 * Inflates zlib data (an iCCP profile) into a new buffer of at most `limit` bytes. Returns TILER_PNG_OK and sets
 * *out (free it with tiler_png_free) and *out_length; TILER_PNG_ERR_CORRUPT for damaged or over-long data.
 */
int tiler_png_inflate(const unsigned char *data, size_t length, size_t limit, unsigned char **out, size_t *out_length);

/* Frees a buffer from tiler_png_inflate. Accepts NULL. */
void tiler_png_free(void *buffer);

/* The message of the last error (empty if none). Valid until the next call on the reader. */
const char *tiler_png_reader_message(const tiler_png_reader *reader);

/* The image row being decoded when the last error happened, or -1 if it was not during rows. */
int64_t tiler_png_reader_error_row(const tiler_png_reader *reader);

/* Frees everything the reader owns (not the FILE). Accepts NULL. */
void tiler_png_reader_destroy(tiler_png_reader *reader);

/* ---- Tile encoder ---- */

/* Filter choice for the encoder (PNG filter method 0). */
#define TILER_PNG_FILTER_NONE 0
#define TILER_PNG_FILTER_SUB 1
#define TILER_PNG_FILTER_UP 2
#define TILER_PNG_FILTER_AVG 3
#define TILER_PNG_FILTER_PAETH 4
#define TILER_PNG_FILTER_ADAPTIVE 5 /* libpng tries all five per row */

typedef struct tiler_png_encoder tiler_png_encoder;

/* level: zlib level 0–9. filter: TILER_PNG_FILTER_*. Returns NULL only if memory runs out. */
tiler_png_encoder *tiler_png_encoder_create(int level, int filter);

/*
 * Encodes 8-bit rows (channels 1–4: gray, gray+alpha, RGB, RGBA) starting at base, `stride` bytes
 * apart, into the encoder's own buffer. On success *out and *out_length describe the PNG file,
 * valid until the next call on the encoder.
 */
int tiler_png_encode(tiler_png_encoder *encoder, const unsigned char *base, uint32_t width, uint32_t height,
                     size_t stride, int channels, const unsigned char **out, size_t *out_length);

/* The message of the last error. */
const char *tiler_png_encoder_message(const tiler_png_encoder *encoder);

/* Accepts NULL. */
void tiler_png_encoder_destroy(tiler_png_encoder *encoder);

/* ---- Test-fixture writer (used by the tests to produce every PNG variant) ---- */

/* A raw PNG to write exactly as given: rows are packed at bit_depth (16-bit big-endian), no transforms. */
typedef struct tiler_png_test_image {
    uint32_t width;
    uint32_t height;
    int color_type;
    int bit_depth;
    int interlaced;
    const unsigned char *rows; /* height rows of row_bytes bytes */
    size_t row_bytes;
    const unsigned char *palette; /* palette_entries RGB triplets (palette images) */
    int palette_entries;
    const unsigned char *palette_alpha; /* tRNS for palette images: palette_alpha_count entries */
    int palette_alpha_count;
    int has_trns_color; /* tRNS for gray / RGB images */
    uint16_t trns_gray;
    uint16_t trns_red;
    uint16_t trns_green;
    uint16_t trns_blue;
    const unsigned char *exif; /* eXIf payload or NULL */
    uint32_t exif_length;
} tiler_png_test_image;

/* Writes `image` to `path`. On failure writes a message into message[0..<message_capacity]. */
int tiler_png_write_test(const char *path, const tiler_png_test_image *image, char *message, size_t message_capacity);

/* ---- Streaming file writer (whole images, rows a strip at a time) ---- */

typedef struct tiler_png_file_writer tiler_png_file_writer;

/*
 * Creates `path` and starts an 8-bit, non-interlaced PNG of width × height with 1–4 channels (gray,
 * gray+alpha, RGB, RGBA) at zlib level 0–9. Returns NULL with a message on failure.
 */
tiler_png_file_writer *tiler_png_file_writer_create(const char *path, uint32_t width, uint32_t height, int channels,
                                                    int level, char *message, size_t message_capacity);

/* Writes `count` rows at base, base + stride, ... */
int tiler_png_file_writer_write_rows(tiler_png_file_writer *writer, const unsigned char *base, size_t stride,
                                     uint32_t count);

/* Writes the end of the file and flushes it. Call once after the last row. */
int tiler_png_file_writer_finish(tiler_png_file_writer *writer);

/* The message of the last error. */
const char *tiler_png_file_writer_message(const tiler_png_file_writer *writer);

/* Closes the file and frees the writer (accepts NULL); returns fclose's result. */
int tiler_png_file_writer_destroy(tiler_png_file_writer *writer);

#endif
