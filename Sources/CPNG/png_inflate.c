/*
 * zlib inflate for the iCCP chunk, which Tiler parses itself (see png_reader.c for why). Bounded: a profile larger
 * than the caller's limit is refused rather than allocated.
 */
#include "CPNG.h"

#include <stdlib.h>
#include <zlib.h>

int tiler_png_inflate(const unsigned char *data, size_t length, size_t limit, unsigned char **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    z_stream z = {0};
    if (inflateInit(&z) != Z_OK) return TILER_PNG_ERR_NOMEM;
    size_t capacity = length * 4 + 1024;
    if (capacity > limit) capacity = limit;
    unsigned char *buffer = malloc(capacity > 0 ? capacity : 1);
    int status = buffer == NULL ? TILER_PNG_ERR_NOMEM : TILER_PNG_OK;
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)length;
    size_t used = 0;
    while (status == TILER_PNG_OK) {
        if (used == capacity) {
            if (capacity >= limit) {
                status = TILER_PNG_ERR_CORRUPT;
                break;
            }
            size_t bigger = capacity * 2 > limit ? limit : capacity * 2;
            unsigned char *grown = realloc(buffer, bigger);
            if (grown == NULL) {
                status = TILER_PNG_ERR_NOMEM;
                break;
            }
            buffer = grown;
            capacity = bigger;
        }
        z.next_out = buffer + used;
        z.avail_out = (uInt)(capacity - used);
        int result = inflate(&z, Z_NO_FLUSH);
        used = capacity - z.avail_out;
        if (result == Z_STREAM_END) break;
        if (result != Z_OK && !(result == Z_BUF_ERROR && used == capacity)) status = TILER_PNG_ERR_CORRUPT;
    }
    inflateEnd(&z);
    if (status != TILER_PNG_OK) {
        free(buffer);
        return status;
    }
    *out = buffer;
    *out_length = used;
    return TILER_PNG_OK;
}

void tiler_png_free(void *buffer) { free(buffer); }
