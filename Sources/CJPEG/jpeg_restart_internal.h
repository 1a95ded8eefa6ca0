/* A JPEG's restart-interval index, shared by its indexing (jpeg_restart_index.c) and the region reader
 * (jpeg_restart.c). */
#ifndef TILER_JPEG_RESTART_INTERNAL_H
#define TILER_JPEG_RESTART_INTERNAL_H

#include "CJPEG.h"

#include <stdio.h>
#include <sys/stat.h>

struct tiler_jpeg_restart_index {
    int32_t width, height, components;
    int32_t intervals_per_row, mcu_rows, interval_mcus;
    unsigned char *header; /* SOI up to the end of the SOS segment */
    size_t header_length;
    size_t sof_offset; /* of the SOF segment's length field in header */
    int64_t *starts;   /* intervals + 1 offsets: where each interval's data begins; the last is the end after EOI */
    const unsigned char *map; /* the file as indexed, mapped read-only (shared: no copy of its pages); NULL while
                                 unmapped to keep within the budget (jpeg_restart_maps.c) */
    size_t map_length;          /* the file's size when indexed */
    char *path;                 /* to map it again */
    dev_t device;               /* what it was when indexed: mapped again only while it still is */
    ino_t inode;
    struct timespec modified;
    int pins;                                           /* reads copying from the mapping now */
    struct tiler_jpeg_restart_index *newer, *older;     /* in the list of mapped indexes */
};

/* jpeg_restart_maps.c: the budget of mapped JPEGs. */
int tiler_jpeg_restart_map_adopt(tiler_jpeg_restart_index *index, int fd, const struct stat *status, char *message, size_t message_size);
int tiler_jpeg_restart_map_pin(tiler_jpeg_restart_index *index, char *message, size_t message_size);
void tiler_jpeg_restart_map_unpin(tiler_jpeg_restart_index *index);
void tiler_jpeg_restart_map_forget(tiler_jpeg_restart_index *index);

static inline void tiler_jpeg_restart_message(char *message, size_t size, const char *text) {
    if (message && size) snprintf(message, size, "%s", text);
}

#endif
