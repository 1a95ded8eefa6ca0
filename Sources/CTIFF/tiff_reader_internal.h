/* The reader's state, shared by tiff_reader.c, tiff_header.c and tiff_rows.c (not part of the module's API). */
#ifndef TILER_TIFF_READER_INTERNAL_H
#define TILER_TIFF_READER_INTERNAL_H

#include "CTIFF.h"

#include <tiffio.h>

/* A second (third, …) libtiff handle on the same file, reading with pread at its own offset, so bands of tiles or
   strips decode on several threads at once. Its messages stay here until the band is done. */
typedef struct tiler_tiff_worker {
    TIFF *tif;
    int fd;                /* the reader's descriptor (not owned) */
    uint64_t offset;       /* this handle's file position */
    unsigned char *tile;   /* one decoded tile */
    int lenient;
    char error[400];
    char damage[400];
    int failed;
    /* the job of the current band */
    struct tiler_tiff_reader *owner;
    int part, parts;
    uint32_t top;
} tiler_tiff_worker;

#define TILER_TIFF_MAX_WORKERS 4
/* Images with fewer pixels decode on the calling thread only. */
#define TILER_TIFF_PARALLEL_PIXELS ((uint64_t)1 << 20)

/* What one delivered pixel is made of. */
enum tiler_tiff_kind { TILER_KIND_GRAY, TILER_KIND_RGB, TILER_KIND_PALETTE, TILER_KIND_CMYK };

struct tiler_tiff_reader {
    TIFF *tif;
    int fd; /* owned: TIFFClose closes it */
    int lenient;
    tiler_tiff_warning_fn warn;
    void *warn_context;
    int warnings;

    int code;                 /* TILER_TIFF_* of the first error, sticky */
    int64_t error_row;
    char message[512];
    char library_error[512];  /* the first error libtiff reported, consumed by tiler_tiff_library_failure */
    char damage[400];         /* strict mode: a libjpeg damage warning, turned into an error after the read */
    int header_done;

    /* The page being read. */
    uint32_t width, height;
    int bps, spp, photometric, planar, path, out_channels, alpha, alpha_sample;
    enum tiler_tiff_kind kind;
    int white_is_zero;        /* MinIsWhite */
    int keep_source;          /* deliver CMYK as ink and 16-bit as big-endian 16-bit (for a colour transform) */
    int out_bytes;            /* bytes per delivered sample: 1, or 2 with keep_source and 16-bit samples */
    int out_samples;          /* samples per delivered pixel */
    uint16_t *colormap[3];    /* owned by libtiff */
    int colormap_8bit;        /* every entry ≤ 255: an old writer's 8-bit map */
    uint32_t tile_width, tile_height, rows_per_strip, strips_per_plane;

    /* The current band: planes × band_rows rows of plane_row_bytes, holding image rows band_start ..< band_start + band_rows. */
    unsigned char *band;      /* allocated when first needed: a band decoded straight into the caller's rows needs none */
    size_t plane_row_bytes;
    int planned;              /* the band's shape is decided and the worker handles are open */
    /* Where the band being loaded goes: band with plane_row_bytes, or the caller's rows with their stride. */
    unsigned char *target;
    size_t target_stride;
    uint32_t band_capacity_rows;
    uint32_t band_start, band_rows;
    unsigned char *tile;      /* one decoded tile (tiled path) */
    uint32_t *raster;         /* RGBA path: band_capacity_rows × width ABGR pixels */
    TIFFRGBAImage rgba;
    int rgba_started;
    uint32_t next_row;
    int page;
    int jpeg_rgb;             /* JPEGCOLORMODE_RGB was set on the main handle */
    int worker_count;         /* extra handles (0: decode on the calling thread only) */
    tiler_tiff_worker workers[TILER_TIFF_MAX_WORKERS];
};

/* 8-bit contiguous gray/RGB/RGBA (or CMYK kept as ink) with nothing to undo: a decoded row is the delivered row. */
int tiler_tiff_is_plain(const tiler_tiff_reader *r);

/* Opens extra handles when the band can be split (tiles across, or strips), on a machine with several cores. */
void tiler_tiff_open_workers(tiler_tiff_reader *r);
/* Decodes the band starting at `top` with the calling thread and every worker; 0 or a TILER_TIFF_* error. */
int tiler_tiff_load_parallel(tiler_tiff_reader *r, uint32_t top);
/* Closes the extra handles. */
void tiler_tiff_close_workers(tiler_tiff_reader *r);
int tiler_tiff_library_failure(tiler_tiff_reader *r, const char *fallback);

/* Records the first error (later ones are ignored) with a printf-style message. */
void tiler_tiff_fail(tiler_tiff_reader *r, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Sends a line to the warning callback (counted against the limit). */
void tiler_tiff_warn(tiler_tiff_reader *r, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
