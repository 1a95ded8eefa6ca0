/* A JPEG's restart-interval index, shared by its indexing (jpeg_restart_index.c) and the region reader
 * (jpeg_restart.c). */
#ifndef TILER_JPEG_RESTART_INTERNAL_H
#define TILER_JPEG_RESTART_INTERNAL_H

#include "CJPEG.h"

#include <stdio.h>

struct tiler_jpeg_restart_index {
    int32_t width, height, components;
    int32_t intervals_per_row, mcu_rows, interval_mcus;
    unsigned char *header; /* SOI up to the end of the SOS segment */
    size_t header_length;
    size_t sof_offset; /* of the SOF segment's length field in header */
    int64_t *starts;   /* intervals + 1 offsets: where each interval's data begins; the last is the end after EOI */
    const unsigned char *map; /* the file as indexed, mapped read-only (shared: no copy of its pages) */
    size_t map_length;
};

static inline void tiler_jpeg_restart_message(char *message, size_t size, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
}

#endif
