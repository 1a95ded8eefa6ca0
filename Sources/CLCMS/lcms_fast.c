/*
 * The measured hot path of colour conversion: 8-bit matrix-shaper RGB (Adobe RGB, ProPhoto, Display P3, PNG
 * gAMA/cHRM, most camera profiles) to sRGB.
 *
 * lcms converts 8-bit RGB through a 3D table at about 55 megapixels/s per core here, which alone would add over
 * 60% to slicing a large image. A matrix-shaper profile is three tone curves and a 3×3 matrix, so the same
 * conversion is three 256-entry decoding tables, a matrix and one encoding table — several times faster. The tables
 * are read from the profiles by lcms, and before they are used they are checked against lcms's own transform over a
 * 17³ grid of colours plus every gray: if any sample differs by more than 2 levels (a profile whose black point
 * compensation or curves the tables do not capture), the lcms transform is used instead. Gray 8-bit sources use a
 * 256-entry table filled by the lcms transform itself, which is exact.
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

static void tiler_lcms_prepare_gray(tiler_lcms_transform *t) {
    unsigned char in[512], out[512];
    int step = t->input.alpha ? 2 : 1;
    for (int i = 0; i < 256; i++) {
        in[i * step] = (unsigned char)i;
        if (t->input.alpha) in[i * step + 1] = 255;
    }
    cmsDoTransform(t->transform, in, out, 256);
    for (int i = 0; i < 256; i++) t->gray[i] = out[i * step];
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
            t->matrix[r * 3 + c] = (float)sum;
        }
    }
    const cmsTagSignature trcs[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = cmsReadTag(source, trcs[c]);
        if (curve == NULL) return 0;
        for (int i = 0; i < 256; i++) t->linear[c][i] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(i / 255.0));
    }
    const cmsToneCurve *encoding = cmsReadTag(destination, cmsSigRedTRCTag);
    cmsToneCurve *reverse = encoding == NULL ? NULL : cmsReverseToneCurve(encoding);
    if (reverse == NULL) return 0;
    for (int i = 0; i <= TILER_LCMS_OUT_STEPS; i++) {
        float v = cmsEvalToneCurveFloat(reverse, (cmsFloat32Number)i / TILER_LCMS_OUT_STEPS);
        float level = v * 255.0f + 0.5f;
        t->encode[i] = (unsigned char)(level < 0 ? 0 : level > 255 ? 255 : level);
    }
    cmsFreeToneCurve(reverse);
    return 1;
}

/* The largest difference between the tables and lcms over a 17³ grid and every gray; 256 if it cannot check. */
static int tiler_lcms_table_error(tiler_lcms_transform *t) {
    enum { grid = 17, count = grid * grid * grid + 256 };
    int step = t->input.alpha ? 4 : 3;
    unsigned char *in = malloc((size_t)count * 4), *exact = malloc((size_t)count * 4), *fast = malloc((size_t)count * 4);
    int worst = 256;
    if (in != NULL && exact != NULL && fast != NULL) {
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
        cmsDoTransform(t->transform, in, exact, count);
        tiler_lcms_apply_fast(t, in, fast, count);
        worst = 0;
        for (size_t i = 0; i < (size_t)count * (size_t)step; i++) {
            int d = abs((int)exact[i] - (int)fast[i]);
            if (d > worst) worst = d;
        }
    }
    free(in);
    free(exact);
    free(fast);
    return worst;
}

void tiler_lcms_prepare_fast(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    t->fast = TILER_LCMS_FAST_NONE;
    if (t->input.bytes != 1) return;
    if (t->input.space == TILER_LCMS_SPACE_GRAY) {
        tiler_lcms_prepare_gray(t);
        return;
    }
    if (t->input.space != TILER_LCMS_SPACE_RGB || !tiler_lcms_tables(t, source, destination)) return;
    t->fast = TILER_LCMS_FAST_RGB8;
    if (tiler_lcms_table_error(t) > 2) t->fast = TILER_LCMS_FAST_NONE;
}

static inline unsigned char tiler_lcms_encode(const tiler_lcms_transform *t, float v) {
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
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
