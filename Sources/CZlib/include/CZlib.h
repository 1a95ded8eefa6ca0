#ifndef TILER_CZLIB_H
#define TILER_CZLIB_H

/*
 * Exists so that Swift can call zlib's CRC-32 (the checksum every ZIP entry carries), which no other shim exports:
 * libpng's and the PNG encoder's use of zlib stays inside CPNG. One prefixed entry point, no state.
 */

#include <stddef.h>
#include <stdint.h>

/* Continues the CRC-32 `crc` (0 to start) over `length` bytes at `bytes`. */
uint32_t tiler_crc32(uint32_t crc, const void *bytes, size_t length);

#endif
