#include "CZlib.h"

#include <limits.h>
#include <zlib.h>

uint32_t tiler_crc32(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    uLong value = crc;
    /* zlib takes a uInt length: feed larger buffers in pieces. */
    while (length > 0) {
        uInt piece = length > UINT_MAX ? UINT_MAX : (uInt)length;
        value = crc32(value, p, piece);
        p += piece;
        length -= piece;
    }
    return (uint32_t)value;
}
