/*
 * 8-bit RGB and RGBA matrix-shaper sources (Adobe RGB, ProPhoto, Wide Gamut, ECI RGB, PNG gAMA/cHRM, ...) to sRGB:
 * three input tables to linear light, one 3x3 matrix, one output table back to sRGB's curve. A hot path, measured
 * in a C loop over 1 Mpx of random pixels: lcms 2.14's own 8-bit transform converts 56 Mpx/s on one of this
 * machine's cores, this path 199 Mpx/s with AVX2 (89 scalar); colour conversion was most of what a tagged 16384²
 * image cost over an untagged one.
 *
 * Built from the profile's colorant and TRC tags, then checked against lcms's unoptimised floating-point transform
 * (relative colorimetric, black-point compensation) on a grid of colours: if any channel is more than one level
 * off, or the AVX2 and scalar kernels disagree, the tables are dropped and lcms does the work. The tables are read
 * only, so one transform may convert disjoint rows from several threads at once.
 */
#include "lcms_matrix.h"
#include "lcms_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The AVX2 kernel must round exactly as the scalar one (they are compared): no fused multiply-adds. */
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static int invert3(const double a[9], double r[9]) {
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                 a[2] * (a[3] * a[7] - a[4] * a[6]);
    if (fabs(det) < 1e-12) return 0;
    r[0] = (a[4] * a[8] - a[5] * a[7]) / det;
    r[1] = (a[2] * a[7] - a[1] * a[8]) / det;
    r[2] = (a[1] * a[5] - a[2] * a[4]) / det;
    r[3] = (a[5] * a[6] - a[3] * a[8]) / det;
    r[4] = (a[0] * a[8] - a[2] * a[6]) / det;
    r[5] = (a[2] * a[3] - a[0] * a[5]) / det;
    r[6] = (a[3] * a[7] - a[4] * a[6]) / det;
    r[7] = (a[1] * a[6] - a[0] * a[7]) / det;
    r[8] = (a[0] * a[4] - a[1] * a[3]) / det;
    return 1;
}

/* Columns are the red, green and blue colorants (D50 XYZ): linear RGB -> XYZ. */
static int colorants(cmsHPROFILE p, double m[9]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(p, tags[c]);
        if (xyz == NULL) return 0;
        m[c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

static inline int32_t out_index(float v) {
    float x = v * (float)OUT_STEPS + 0.5f;
    if (!(x > 0)) return 0;
    return x >= (float)OUT_STEPS ? OUT_STEPS : (int32_t)x;
}

static void apply_scalar(const struct tiler_lcms_matrix *k, const unsigned char *s, unsigned char *d, size_t n,
                         int alpha) {
    const float *m = k->m;
    const size_t step = alpha ? 4 : 3;
    for (size_t i = 0; i < n; i++, s += step, d += step) {
        float r = k->linear[0][s[0]], g = k->linear[1][s[1]], b = k->linear[2][s[2]];
        d[0] = (unsigned char)k->out[out_index(m[0] * r + m[1] * g + m[2] * b)];
        d[1] = (unsigned char)k->out[out_index(m[3] * r + m[4] * g + m[5] * b)];
        d[2] = (unsigned char)k->out[out_index(m[6] * r + m[7] * g + m[8] * b)];
        if (alpha) d[3] = s[3];
    }
}

#if defined(__x86_64__)
/* Eight pixels per round: a byte gather in, table gathers, the matrix, table gathers out, one shuffle. */
__attribute__((target("avx2"))) static size_t apply_avx2(const struct tiler_lcms_matrix *k, const unsigned char *s,
                                                              unsigned char *d, size_t n, int alpha) {
    const size_t step = alpha ? 4 : 3;
    const __m256i offsets = alpha ? _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28) : _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    const __m256i low = _mm256_set1_epi32(0xFF);
    __m256 m[9];
    for (int i = 0; i < 9; i++) m[i] = _mm256_set1_ps(k->m[i]);
    const __m256 scale = _mm256_set1_ps((float)OUT_STEPS), zero = _mm256_setzero_ps();
    const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8,
                                          9, 10, 12, 13, 14, -1, -1, -1, -1);
    /* RGB reads one byte past its eight pixels and writes four past them: stop while two pixels remain. */
    const size_t reserve = alpha ? 0 : 2;
    size_t i = 0;
    for (; i + 8 + reserve <= n; i += 8) {
        __m256i w = _mm256_i32gather_epi32((const int *)(s + i * step), offsets, 1);
        __m256 r = _mm256_i32gather_ps(k->linear[0], _mm256_and_si256(w, low), 4);
        __m256 g = _mm256_i32gather_ps(k->linear[1], _mm256_and_si256(_mm256_srli_epi32(w, 8), low), 4);
        __m256 b = _mm256_i32gather_ps(k->linear[2], _mm256_and_si256(_mm256_srli_epi32(w, 16), low), 4);
        __m256i o[3];
        for (int c = 0; c < 3; c++) {
            __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m[3 * c], r), _mm256_mul_ps(m[3 * c + 1], g)),
                                     _mm256_mul_ps(m[3 * c + 2], b));
            /* Same rounding as out_index: +0.5 then truncate, clamped to the table. */
            v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(_mm256_mul_ps(v, scale), _mm256_set1_ps(0.5f)), zero),
                              scale);
            o[c] = _mm256_i32gather_epi32(k->out, _mm256_cvttps_epi32(v), 4);
        }
        __m256i px = _mm256_or_si256(o[0], _mm256_or_si256(_mm256_slli_epi32(o[1], 8), _mm256_slli_epi32(o[2], 16)));
        if (alpha) {
            px = _mm256_or_si256(px, _mm256_andnot_si256(_mm256_set1_epi32(0x00FFFFFF), w));
            _mm256_storeu_si256((__m256i *)(d + i * 4), px);
        } else {
            __m256i q = _mm256_shuffle_epi8(px, pack);
            _mm_storeu_si128((__m128i *)(d + i * 3), _mm256_castsi256_si128(q));
            _mm_storeu_si128((__m128i *)(d + i * 3 + 12), _mm256_extracti128_si256(q, 1));
        }
    }
    return i;
}
#endif

static void apply(const struct tiler_lcms_matrix *k, const unsigned char *s, unsigned char *d, size_t n, int alpha,
                  int kernel) {
    size_t done = 0;
#if defined(__x86_64__)
    if (kernel == TILER_LCMS_KERNEL_AVX512) done = tiler_lcms_apply_avx512(k, s, d, n, alpha);
    if (kernel == TILER_LCMS_KERNEL_AVX2) done = apply_avx2(k, s, d, n, alpha);
#else
    (void)kernel;
#endif
    const size_t step = alpha ? 4 : 3;
    apply_scalar(k, s + done * step, d + done * step, n - done, alpha);
}

/* Tables from the tags; 0 if the profiles are not both matrix-shaper RGB with readable tags. */
static int build(struct tiler_lcms_matrix *k, cmsHPROFILE source, cmsHPROFILE destination) {
    if (!cmsIsMatrixShaper(source) || !cmsIsMatrixShaper(destination)) return 0;
    double src[9], dst[9], inverse[9];
    if (!colorants(source, src) || !colorants(destination, dst) || !invert3(dst, inverse)) return 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            k->m[3 * r + c] = (float)(inverse[3 * r] * src[c] + inverse[3 * r + 1] * src[3 + c] +
                                      inverse[3 * r + 2] * src[6 + c]);
    const cmsTagSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = cmsReadTag(source, trc[c]);
        if (curve == NULL) return 0;
        for (int v = 0; v < 256; v++) k->linear[c][v] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)v / 255.0f);
    }
    const cmsToneCurve *green = cmsReadTag(destination, cmsSigGreenTRCTag);
    if (green == NULL) return 0;
    cmsToneCurve *back = cmsReverseToneCurve(green);
    if (back == NULL) return 0;
    for (int i = 0; i <= OUT_STEPS; i++) {
        float level = cmsEvalToneCurveFloat(back, (cmsFloat32Number)i / (float)OUT_STEPS) * 255.0f + 0.5f;
        k->out[i] = level > 0 ? (level < 255 ? (int32_t)level : 255) : 0;
    }
    /* The same curve in levels as a function of u = sqrt(linear), one quadratic per 1/32 of u (exact through each
     * segment's ends and middle): what the AVX-512 kernel evaluates instead of gathering from `out`. */
    for (int segment = 0; segment < OUT_SEGMENTS; segment++) {
        float f[3];
        for (int j = 0; j < 3; j++) {
            float u = ((float)segment + 0.5f * (float)j) / (float)OUT_SEGMENTS;
            f[j] = cmsEvalToneCurveFloat(back, u * u) * 255.0f;
        }
        k->quadratic[0][segment] = f[0];
        k->quadratic[1][segment] = 4 * f[1] - 3 * f[0] - f[2];
        k->quadratic[2][segment] = 2 * f[0] - 4 * f[1] + 2 * f[2];
    }
    cmsFreeToneCurve(back);
    return 1;
}

/* Every 8-bit level in 18 steps per channel (5,832 colours, corners included) through lcms in floating point and the
 * tables' kernels: the scalar one and AVX-512 within one level of lcms, AVX2 exactly as the scalar one. Returns the
 * fastest kernel that passes, or -1 if even the scalar one does not. */
static int best_kernel(const struct tiler_lcms_matrix *k, cmsContext context, cmsHPROFILE source, cmsHPROFILE destination,
                       int available) {
    enum { STEPS = 18, COUNT = STEPS * STEPS * STEPS };
    cmsHTRANSFORM precise = cmsCreateTransformTHR(context, source, TYPE_RGB_FLT, destination, TYPE_RGB_FLT,
                                                  INTENT_RELATIVE_COLORIMETRIC,
                                                  cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE);
    if (precise == NULL) return -1;
    unsigned char *bytes = malloc(COUNT * 3 * 3 + 64);
    float *floats = malloc(COUNT * 3 * 2 * sizeof(float));
    int best = -1;
    if (bytes != NULL && floats != NULL) {
        unsigned char *in = bytes, *scalar = bytes + COUNT * 3, *vector = bytes + COUNT * 6;
        for (int i = 0; i < COUNT; i++) {
            int levels[3] = {i % STEPS, (i / STEPS) % STEPS, i / (STEPS * STEPS)};
            for (int c = 0; c < 3; c++) {
                in[3 * i + c] = (unsigned char)(levels[c] * 15);
                floats[3 * i + c] = (float)in[3 * i + c] / 255.0f;
            }
        }
        cmsDoTransform(precise, floats, floats + COUNT * 3, COUNT);
        apply(k, in, scalar, COUNT, 0, TILER_LCMS_KERNEL_SCALAR);
        int ok = 1;
        for (int i = 0; ok && i < COUNT * 3; i++) {
            float v = floats[COUNT * 3 + i];
            ok = abs((int)lrintf((v < 0 ? 0 : v > 1 ? 1 : v) * 255.0f) - scalar[i]) <= 1;
        }
        if (ok) best = TILER_LCMS_KERNEL_SCALAR;
        for (int kernel = TILER_LCMS_KERNEL_AVX2; ok && kernel <= available; kernel++) {
            apply(k, in, vector, COUNT, 0, kernel);
            int same = 1;
            for (int i = 0; same && i < COUNT * 3; i++) {
                float v = floats[COUNT * 3 + i];
                int want = kernel == TILER_LCMS_KERNEL_AVX2 ? scalar[i] : (int)lrintf((v < 0 ? 0 : v > 1 ? 1 : v) * 255.0f);
                same = abs(want - vector[i]) <= (kernel == TILER_LCMS_KERNEL_AVX2 ? 0 : 1);
            }
            if (same) best = kernel;
        }
    }
    free(bytes);
    free(floats);
    cmsDeleteTransform(precise);
    return best;
}

int tiler_lcms_prepare_matrix(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    if (t->input.bytes != 1 || t->input.space != TILER_LCMS_SPACE_RGB) return 0;
    struct tiler_lcms_matrix *k = aligned_alloc(64, (sizeof *k + 63) / 64 * 64);
    if (k == NULL) return 0;
    int available = TILER_LCMS_KERNEL_SCALAR;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) available = TILER_LCMS_KERNEL_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi")) {
        available = TILER_LCMS_KERNEL_AVX512;
    }
#endif
    k->kernel = build(k, source, destination) ? best_kernel(k, t->context, source, destination, available) : -1;
    if (k->kernel < 0) {
        free(k);
        t->log.message[0] = 0; /* a declined fast path is not an error */
        return 0;
    }
    t->matrix = k;
    return 1;
}

void tiler_lcms_apply_matrix(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels) {
    apply(t->matrix, src, dst, pixels, t->input.alpha, t->matrix->kernel);
}

int tiler_lcms_matrix_kernel(const tiler_lcms_transform *t) { return t->matrix == NULL ? -1 : t->matrix->kernel; }

void tiler_lcms_free_matrix(tiler_lcms_transform *t) {
    free(t->matrix);
    t->matrix = NULL;
}
