/*
 * The matrix tables' AVX-512 kernel: 16 pixels per round. Gathers were most of the AVX2 kernel's time (seven per
 * eight pixels, each about 4.4 ns on this machine), so here the source bytes are picked with one byte permute and
 * sRGB's curve is not gathered from the 16,385-entry table but evaluated: one quadratic per 1/32 of sqrt(linear),
 * its three coefficients picked from registers by permutes. Only the three curve lookups remain gathers.
 * lcms_matrix.c checks this kernel against lcms in floating point (within one level) before it is used.
 */
#include "lcms_matrix.h"

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t tiler_lcms_apply_avx512(const struct tiler_lcms_matrix *k,
                                                                                     const unsigned char *s,
                                                                                     unsigned char *d, size_t n, int alpha) {
    const size_t step = alpha ? 4 : 3;
    /* For channel c, byte 4i of the result is byte step * i + c of the source: one 32-bit lane per pixel. */
    unsigned char pick_bytes[3][64];
    /* The low three bytes of each of 16 lanes, packed: what an RGB row stores. */
    unsigned char pack_bytes[64];
    for (int i = 0; i < 64; i++) {
        for (int c = 0; c < 3; c++) pick_bytes[c][i] = (unsigned char)(i % 4 == 0 ? (size_t)(i / 4) * step + (size_t)c : 0);
        pack_bytes[i] = (unsigned char)(i < 48 ? (i / 3) * 4 + i % 3 : 0);
    }
    __m512i pick[3];
    for (int c = 0; c < 3; c++) pick[c] = _mm512_loadu_si512(pick_bytes[c]);
    const __m512i pack = _mm512_loadu_si512(pack_bytes);
    const __mmask64 lanes = 0x1111111111111111ULL, rgb = (1ULL << 48) - 1;
    __m512 m[9];
    for (int i = 0; i < 9; i++) m[i] = _mm512_set1_ps(k->m[i]);
    __m512 q[3][2];
    for (int j = 0; j < 3; j++) {
        q[j][0] = _mm512_loadu_ps(k->quadratic[j]);
        q[j][1] = _mm512_loadu_ps(k->quadratic[j] + 16);
    }
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    const __m512 segments = _mm512_set1_ps((float)OUT_SEGMENTS), last = _mm512_set1_ps((float)OUT_SEGMENTS - 1);
    const __m512 top = _mm512_set1_ps(255.0f);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = alpha ? _mm512_loadu_si512(s + i * 4) : _mm512_maskz_loadu_epi8(rgb, s + i * 3);
        __m512 linear[3];
        for (int c = 0; c < 3; c++) {
            __m512i index = _mm512_maskz_permutexvar_epi8(lanes, pick[c], v);
            linear[c] = _mm512_i32gather_ps(index, k->linear[c], 4);
        }
        __m512i levels[3];
        for (int c = 0; c < 3; c++) {
            __m512 x = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(m[3 * c], linear[0]), _mm512_mul_ps(m[3 * c + 1], linear[1])),
                                     _mm512_mul_ps(m[3 * c + 2], linear[2]));
            x = _mm512_min_ps(_mm512_max_ps(x, zero), one);
            __m512 u = _mm512_mul_ps(_mm512_sqrt_ps(x), segments);
            __m512 floor = _mm512_min_ps(_mm512_roundscale_ps(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), last);
            __m512i segment = _mm512_cvttps_epi32(floor);
            __m512 t = _mm512_sub_ps(u, floor);
            __m512 a = _mm512_permutex2var_ps(q[0][0], segment, q[0][1]);
            __m512 b = _mm512_permutex2var_ps(q[1][0], segment, q[1][1]);
            __m512 c2 = _mm512_permutex2var_ps(q[2][0], segment, q[2][1]);
            __m512 y = _mm512_fmadd_ps(t, _mm512_fmadd_ps(t, c2, b), a);
            y = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(y, half), zero), top);
            levels[c] = _mm512_cvttps_epi32(y);
        }
        __m512i px = _mm512_or_si512(levels[0], _mm512_or_si512(_mm512_slli_epi32(levels[1], 8), _mm512_slli_epi32(levels[2], 16)));
        if (alpha) {
            px = _mm512_or_si512(px, _mm512_andnot_si512(_mm512_set1_epi32(0x00FFFFFF), v));
            _mm512_storeu_si512(d + i * 4, px);
        } else {
            _mm512_mask_storeu_epi8(d + i * 3, rgb, _mm512_permutexvar_epi8(pack, px));
        }
    }
    return i;
}
#endif
