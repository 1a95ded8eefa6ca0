/* The matrix tables of lcms_matrix.c, shared with its AVX-512 kernel (lcms_matrix_avx512.c). */
#ifndef LCMS_MATRIX_H
#define LCMS_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#define OUT_STEPS 16384 /* linear light in 1/16384 steps: under 0.2 of an 8-bit level at sRGB's steepest */
#define OUT_SEGMENTS 32 /* quadratics over sqrt(linear) for the AVX-512 kernel */

#define TILER_LCMS_KERNEL_SCALAR 0
#define TILER_LCMS_KERNEL_AVX2 1
#define TILER_LCMS_KERNEL_AVX512 2

struct tiler_lcms_matrix {
    float linear[3][256];
    float m[9];
    int32_t out[OUT_STEPS + 1];
    /* Levels (0-255, before rounding) of segment s at t in [0, 1): q[0][s] + t * (q[1][s] + t * q[2][s]). */
    float quadratic[3][OUT_SEGMENTS];
    int kernel; /* TILER_LCMS_KERNEL_*: the fastest one that passed the check */
};

#if defined(__x86_64__)
/* Converts the first pixels of n with AVX-512 (16 per round); returns how many (the rest go to the scalar kernel). */
size_t tiler_lcms_apply_avx512(const struct tiler_lcms_matrix *k, const unsigned char *s, unsigned char *d, size_t n,
                               int alpha);
#endif

#endif
