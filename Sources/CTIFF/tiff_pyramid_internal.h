/* The pyramid's state, shared by tiff_pyramid.c (opening), tiff_pyramid_jpeg.c and tiff_pyramid_decode.c (not module API). */
#ifndef TILER_TIFF_PYRAMID_INTERNAL_H
#define TILER_TIFF_PYRAMID_INTERNAL_H

#include "CTIFF.h"
#include "CTIFFSource.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <tiffio.h>

/* libtiff handles kept for decoding, each behind its own lock: at most this many tiles of one file decode at once. */
#define TILER_TIFF_PYRAMID_HANDLES 4
/* The largest side of a TIFF of one level served in place: every coarser Deep Zoom tile decodes all of it. */
#define TILER_TIFF_SINGLE_LEVEL_MAX 4096
/* Directories walked in the main chain before the file is called damaged (a loop libtiff missed, or garbage). */
#define TILER_TIFF_PYRAMID_MAX_DIRECTORIES 1024
/* Tiles wider or taller than this are refused (a damaged header must not make a tile buffer of gigabytes). */
#define TILER_TIFF_PYRAMID_MAX_TILE_SIDE 4096
/* Tiles in one level at most (the index costs 16 bytes a tile: 256 MiB here; a 1-gigapixel level has 16,384). */
#define TILER_TIFF_PYRAMID_MAX_TILES ((uint64_t)1 << 24)

/* One libtiff handle on the pyramid's descriptor, reading with pread at its own offset (client procedures). */
typedef struct tiler_tiff_handle {
    pthread_mutex_t lock;
    TIFF *tif;             /* NULL until first used */
    int fd;                /* the pyramid's descriptor (not owned), or -1 */
    const tiler_tiff_source *source; /* the pyramid's source when it has no descriptor, else NULL */
    uint64_t offset;       /* this handle's file position */
    int level;             /* the level whose directory is current, or -1 */
    char error[300];       /* libtiff's first error since the last reset */
    char damage[300];      /* libjpeg's first "corrupt data" warning since the last reset */
} tiler_tiff_handle;

/* One stored level: the public facts plus where its directory and tiles are. */
typedef struct tiler_tiff_pyramid_level {
    tiler_tiff_level info;
    uint64_t directory;    /* the IFD's file offset (for TIFFSetSubDirectory) */
    int photometric, samples, extra_alpha; /* extra_alpha: 0 none, 1 associated, 2 unassociated */
    uint32_t tiles;        /* columns × rows */
    uint64_t *offsets;     /* TileOffsets, `tiles` entries */
    uint64_t *counts;      /* TileByteCounts */
    _Atomic uint64_t *checked; /* one bit a tile: jpeg_region found its markers sound (it is not read again) */
    unsigned char *tables; /* JPEGTables (SOI … EOI) or NULL */
    uint32_t tables_length;
    size_t decoded_bytes;  /* TIFFTileSize as libtiff decodes it (samples × tile width × tile height) */
} tiler_tiff_pyramid_level;

/* Associated images kept at most (a slide has two or three). */
#define TILER_TIFF_PYRAMID_MAX_ASSOCIATED 16
/* The largest associated image's strip, in bytes (as Slicing's AssociatedImage.maxBytes). */
#define TILER_TIFF_PYRAMID_MAX_ASSOCIATED_BYTES ((uint64_t)64 << 20)

/* One associated image: the public facts, with its kind and tables owned here. */
typedef struct tiler_tiff_associated_entry {
    char kind[65];
    tiler_tiff_associated info; /* info.kind points at kind, info.tables at tables */
    unsigned char *tables;
} tiler_tiff_associated_entry;

struct tiler_tiff_pyramid {
    int fd;                /* owned; -1 for a pyramid read through `source` */
    tiler_tiff_source source; /* source.read is NULL for a file */
    uint64_t file_size;    /* when opened */
    int layout;            /* TILER_TIFF_LAYOUT_* */
    int big_tiff;
    int level_count;
    tiler_tiff_pyramid_level *levels;
    unsigned char *icc;
    uint32_t icc_length;
    char *description;
    double x_resolution, y_resolution; /* IFD 0's, 0 when absent */
    int resolution_unit;
    tiler_tiff_associated_entry associated[TILER_TIFF_PYRAMID_MAX_ASSOCIATED];
    int associated_count;
    atomic_uint next_handle; /* which handle to wait for when all are busy (round robin) */
    tiler_tiff_handle handles[TILER_TIFF_PYRAMID_HANDLES];
};

/* Opens handle `h` on the pyramid's descriptor if it is not open yet; 0 or -1 (message in h->error). */
int tiler_tiff_handle_open(tiler_tiff_handle *h);

/* Reads the level whose IFD is at `directory` into p->levels[index] with handle 0; 0 or an error code with message. */
int tiler_tiff_read_level(tiler_tiff_pyramid *p, TIFF *tif, uint64_t directory, int index, char *message, size_t capacity);

/* Notes the current directory of the main chain as an associated image if it is one (tiff_pyramid_associated.c). */
void tiler_tiff_note_associated(tiler_tiff_pyramid *p, TIFF *tif);

/* printf into a caller's message buffer (capacity may be 0). */
void tiler_tiff_say(char *message, size_t capacity, const char *format, ...) __attribute__((format(printf, 3, 4)));

/*
 * Checks tile (column, row) of `level` and reads its stored bytes with pread into a new buffer (the caller frees it).
 * Returns 0 or a TILER_TIFF_ERR_* code with message filled: no data, past the end of the file, an absurd byte count,
 * a short read (the file changed since it was opened).
 */
int tiler_tiff_pyramid_read_stored_nowait(const tiler_tiff_pyramid *p, int level, int column, int row, int nowait, unsigned char **data,
                                          size_t *length, char *message, size_t capacity);
int tiler_tiff_pyramid_read_stored(const tiler_tiff_pyramid *p, int level, int column, int row, unsigned char **data, size_t *length,
                                   char *message, size_t capacity);

/* Checks tile (column, row) of `level` and its entry in the index; sets *index (row-major). 0 or an error code. */
int tiler_tiff_check_extent(const tiler_tiff_pyramid *p, int level, int column, int row, uint32_t *index, char *message, size_t capacity);

/* Whether `data` is a JPEG stream (see tiff_pyramid_tiles.c); NULL when it is, else what is wrong. */
const char *tiler_tiff_jpeg_problem(const unsigned char *data, size_t length, int tables);

#endif
