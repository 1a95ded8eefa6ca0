/*
 * 8-bit gray sources: a 256-entry table filled by lcms's unoptimised floating-point transform. lcms's optimised
 * integer gray path joins the curves into a coarse table that was up to 10 levels off near black for a linear
 * (gAMA 1.0) source; the table is exact to lcms's floating-point answer and costs one lookup per pixel.
 *
 * 8-bit RGB matrix-shaper sources have tables of their own in lcms_matrix.c.
 */
#include "lcms_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int tiler_lcms_prepare_fast(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination) {
    t->fast = TILER_LCMS_FAST_NONE;
    if (t->input.bytes != 1) return 0;
    if (t->input.space == TILER_LCMS_SPACE_RGB) {
        if (tiler_lcms_prepare_matrix(t, source, destination)) t->fast = TILER_LCMS_FAST_MATRIX;
        return t->fast != TILER_LCMS_FAST_NONE;
    }
    if (t->input.space != TILER_LCMS_SPACE_GRAY) return 0;
    tiler_lcms_prepare_gray(t, source, destination);
    return t->fast != TILER_LCMS_FAST_NONE;
}

void tiler_lcms_apply_fast(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels) {
    if (t->fast == TILER_LCMS_FAST_MATRIX) {
        tiler_lcms_apply_matrix(t, src, dst, pixels);
        return;
    }
    const unsigned char *s = src;
    if (t->input.alpha) {
        for (size_t i = 0; i < pixels; i++, s += 2, dst += 2) {
            dst[0] = t->gray[s[0]];
            dst[1] = s[1];
        }
    } else {
        for (size_t i = 0; i < pixels; i++) dst[i] = t->gray[s[i]];
    }
}
