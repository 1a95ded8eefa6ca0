/*
 * The measured hot path of colour conversion: 8-bit matrix-shaper RGB (Adobe RGB, ProPhoto, Display P3, PNG
 * gAMA/cHRM, most camera profiles) to sRGB.
 *
 * lcms converts 8-bit RGB through a 3D table at about 55 megapixels/s per core here, which alone would add over
 * 60% to slicing a large image. A matrix-shaper profile is three tone curves and a 3×3 matrix, so the same
 * conversion is three 256-entry decoding tables, a matrix and one encoding table — several times faster. The tables
 * are read from the profiles by lcms, and before they are used they are checked against lcms's unoptimised
 * floating-point transform over a 9³ grid of colours plus every gray: if any sample differs by more than 1 level (a
 * profile whose black point compensation or curves the tables do not capture), the lcms transform is used instead. Gray 8-bit sources use a
 * 256-entry table filled by a floating-point lcms transform.
 */
#include "lcms_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int tiler_lcms_invert(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (fabs(det) < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

/* Columns are the red, green and blue colorants (PCS XYZ, D50). */
static int tiler_lcms_colorants(cmsHPROFILE profile, double m[9]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[c]);
        if (xyz == NULL) return 0;
        m[c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

/* Every 8-bit gray value through an unoptimised floating-point lcms transform: lcms's optimised integer gray paths
 * join the curves into a coarse table (up to 10 levels off near black for a linear source). */
static void tiler_lcms_prepare_gray(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    cmsHTRANSFORM precise =
        cmsCreateTransformTHR(t->context, source, TYPE_GRAY_FLT, destination, TYPE_GRAY_FLT, INTENT_RELATIVE_COLORIMETRIC,
                              cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE);
    if (precise == NULL) return;
    cmsFloat32Number in[256], out[256];
    for (int i = 0; i < 256; i++) in[i] = (cmsFloat32Number)i / 255.0f;
    cmsDoTransform(precise, in, out, 256);
    cmsDeleteTransform(precise);
    for (int i = 0; i < 256; i++) {
        float level = out[i] * 255.0f + 0.5f;
        t->gray[i] = (unsigned char)(level > 0 ? (level < 255 ? level : 255) : 0);
    }
    t->fast = TILER_LCMS_FAST_GRAY8;
}

static int tiler_lcms_tables(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    if (!cmsIsMatrixShaper(source) || !cmsIsMatrixShaper(destination)) return 0;
    double from[9], to[9], inverse[9];
    if (!tiler_lcms_colorants(source, from) || !tiler_lcms_colorants(destination, to)) return 0;
    if (!tiler_lcms_invert(to, inverse)) return 0;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[r * 3 + k] * from[k * 3 + c];
            if (!isfinite(sum) || fabs(sum) > 1e6) return 0;
            t->matrix[r * 3 + c] = (float)sum;
        }
    }
    const cmsTagSignature trcs[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = cmsReadTag(source, trcs[c]);
        if (curve == NULL) return 0;
        for (int i = 0; i < 256; i++) {
            float v = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(i / 255.0));
            if (!isfinite(v)) return 0;
            t->linear[c][i] = v;
        }
    }
    const cmsToneCurve *encoding = cmsReadTag(destination, cmsSigRedTRCTag);
    cmsToneCurve *reverse = encoding == NULL ? NULL : cmsReverseToneCurve(encoding);
    if (reverse == NULL) return 0;
    for (int i = 0; i <= TILER_LCMS_OUT_STEPS; i++) {
        float v = cmsEvalToneCurveFloat(reverse, (cmsFloat32Number)i / TILER_LCMS_OUT_STEPS);
        float level = v * 255.0f + 0.5f;
        t->encode[i] = (unsigned char)(level > 0 ? (level < 255 ? level : 255) : 0);
    }
    cmsFreeToneCurve(reverse);
    return 1;
}

/* The largest difference between the tables and lcms's unoptimised floating-point transform (the exact answer)
 * over a 9³ grid and every gray; 256 if it cannot check. */
static int tiler_lcms_table_error(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    enum { grid = 9, count = grid * grid * grid + 256 };
    int step = t->input.alpha ? 4 : 3;
    cmsHTRANSFORM exact_transform =
        cmsCreateTransformTHR(t->context, source, TYPE_RGB_FLT, destination, TYPE_RGB_FLT, INTENT_RELATIVE_COLORIMETRIC,
                              cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE);
    unsigned char *in = malloc((size_t)count * 4), *fast = malloc((size_t)count * 4);
    float *exact_in = malloc(sizeof(float) * count * 3), *exact = malloc(sizeof(float) * count * 3);
    int worst = 256;
    if (exact_transform != NULL && in != NULL && fast != NULL && exact_in != NULL && exact != NULL) {
        size_t p = 0;
        for (int r = 0; r < grid; r++)
            for (int g = 0; g < grid; g++)
                for (int b = 0; b < grid; b++, p++) {
                    unsigned char *px = in + p * step;
                    px[0] = (unsigned char)(r * 255 / (grid - 1));
                    px[1] = (unsigned char)(g * 255 / (grid - 1));
                    px[2] = (unsigned char)(b * 255 / (grid - 1));
                    if (t->input.alpha) px[3] = (unsigned char)p;
                }
        for (int v = 0; v < 256; v++, p++) {
            unsigned char *px = in + p * step;
            px[0] = px[1] = px[2] = (unsigned char)v;
            if (t->input.alpha) px[3] = 255;
        }
        for (size_t i = 0; i < (size_t)count; i++)
            for (int c = 0; c < 3; c++) exact_in[i * 3 + c] = in[i * step + c] / 255.0f;
        cmsDoTransform(exact_transform, exact_in, exact, count);
        tiler_lcms_apply_fast(t, in, fast, count);
        worst = 0;
        for (size_t i = 0; i < (size_t)count; i++) {
            for (int c = 0; c < 3; c++) {
                float level = exact[i * 3 + c] * 255.0f;
                level = level > 0 ? (level < 255 ? level : 255) : 0;
                int d = abs((int)(level + 0.5f) - (int)fast[i * step + c]);
                if (d > worst) worst = d;
            }
            if (t->input.alpha && fast[i * step + 3] != in[i * step + 3]) worst = 256;
        }
    }
    if (exact_transform != NULL) cmsDeleteTransform(exact_transform);
    free(in);
    free(fast);
    free(exact_in);
    free(exact);
    return worst;
}

int tiler_lcms_prepare_fast(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    t->fast = TILER_LCMS_FAST_NONE;
    if (t->input.bytes != 1) return 0;
    if (t->input.space == TILER_LCMS_SPACE_GRAY) {
        tiler_lcms_prepare_gray(t, source, destination);
        return t->fast != TILER_LCMS_FAST_NONE;
    }
    if (t->input.space != TILER_LCMS_SPACE_RGB || !tiler_lcms_tables(t, source, destination)) return 0;
    t->fast = TILER_LCMS_FAST_RGB8;
    if (tiler_lcms_table_error(t, source, destination) > 1) t->fast = TILER_LCMS_FAST_NONE;
    return t->fast != TILER_LCMS_FAST_NONE;
}

static inline unsigned char tiler_lcms_encode(const tiler_lcms_transform *t, float v) {
    /* Written so that NaN (from a damaged profile) becomes 0, never an index out of the table. */
    v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
    return t->encode[(int)(v * TILER_LCMS_OUT_STEPS + 0.5f)];
}

void tiler_lcms_apply_fast(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels) {
    const unsigned char *s = src;
    if (t->fast == TILER_LCMS_FAST_GRAY8) {
        if (t->input.alpha) {
            for (size_t i = 0; i < pixels; i++, s += 2, dst += 2) {
                dst[0] = t->gray[s[0]];
                dst[1] = s[1];
            }
        } else {
            for (size_t i = 0; i < pixels; i++) dst[i] = t->gray[s[i]];
        }
        return;
    }
    const float *m = t->matrix;
    const int step = t->input.alpha ? 4 : 3;
    for (size_t i = 0; i < pixels; i++, s += step, dst += step) {
        float r = t->linear[0][s[0]], g = t->linear[1][s[1]], b = t->linear[2][s[2]];
        dst[0] = tiler_lcms_encode(t, m[0] * r + m[1] * g + m[2] * b);
        dst[1] = tiler_lcms_encode(t, m[3] * r + m[4] * g + m[5] * b);
        dst[2] = tiler_lcms_encode(t, m[6] * r + m[7] * g + m[8] * b);
        if (step == 4) dst[3] = s[3];
    }
}
