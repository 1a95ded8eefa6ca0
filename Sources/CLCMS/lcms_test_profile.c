/*
 * A CMYK ICC profile for the tests (Debian ships no CMYK profile in a small package): its AToB0 table maps ink to
 * the colour of the uncalibrated formula R = (1 − C)(1 − K) etc. read as sRGB, sampled on a 9⁴ grid. A CMYK JPEG
 * tagged with it must therefore decode close to that formula — and far from it if the ink were read inverted.
 */
#include "CLCMS.h"

#include <lcms2.h>
#include <stdlib.h>

typedef struct {
    cmsHTRANSFORM to_lab;
} tiler_lcms_sampler;

static cmsInt32Number tiler_lcms_sample(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    tiler_lcms_sampler *s = cargo;
    double k = 1.0 - in[3] / 65535.0;
    double rgb[3];
    for (int c = 0; c < 3; c++) rgb[c] = (1.0 - in[c] / 65535.0) * k;
    cmsCIELab lab;
    cmsDoTransform(s->to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return 1;
}

int tiler_lcms_test_cmyk_profile(unsigned char **out, size_t *length) {
    *out = NULL;
    *length = 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
    cmsPipeline *pipeline = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
    tiler_lcms_sampler sampler = {NULL};
    int ok = srgb != NULL && lab != NULL && profile != NULL && pipeline != NULL && clut != NULL;
    if (ok) sampler.to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    ok = ok && sampler.to_lab != NULL && cmsStageSampleCLut16bit(clut, tiler_lcms_sample, &sampler, 0);
    if (ok) {
        /* The mAB type wants curves around the table: identity ones. */
        ok = cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL)) &&
             cmsPipelineInsertStage(pipeline, cmsAT_END, clut) &&
             cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
        clut = NULL;
        cmsSetProfileVersion(profile, 4.3);
        cmsSetDeviceClass(profile, cmsSigOutputClass);
        cmsSetColorSpace(profile, cmsSigCmykData);
        cmsSetPCS(profile, cmsSigLabData);
        cmsMLU *description = cmsMLUalloc(NULL, 1);
        ok = ok && description != NULL && cmsMLUsetASCII(description, "en", "US", "Tiler test CMYK (uncalibrated formula)") &&
             cmsWriteTag(profile, cmsSigProfileDescriptionTag, description) &&
             cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ()) &&
             cmsWriteTag(profile, cmsSigAToB0Tag, pipeline);
        if (description != NULL) cmsMLUfree(description);
    }
    cmsUInt32Number size = 0;
    if (ok) ok = cmsSaveProfileToMem(profile, NULL, &size) && size > 0;
    if (ok) {
        *out = malloc(size);
        ok = *out != NULL && cmsSaveProfileToMem(profile, *out, &size);
        if (ok) *length = size;
    }
    if (sampler.to_lab != NULL) cmsDeleteTransform(sampler.to_lab);
    if (clut != NULL) cmsStageFree(clut);
    if (pipeline != NULL) cmsPipelineFree(pipeline);
    if (profile != NULL) cmsCloseProfile(profile);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (lab != NULL) cmsCloseProfile(lab);
    if (!ok) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

void tiler_lcms_free(void *buffer) { free(buffer); }

/* The reference the tests hold the fast paths to: lcms's unoptimised floating-point transform from the RGB
 * profile `icc` to sRGB (relative colorimetric, black-point compensation), clipped and rounded to 8 bits. */
int tiler_lcms_test_reference(const void *icc, size_t length, const unsigned char *rgb, unsigned char *out,
                              size_t pixels) {
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)length), srgb = cmsCreate_sRGBProfile();
    cmsHTRANSFORM precise = source == NULL || srgb == NULL
                                ? NULL
                                : cmsCreateTransform(source, TYPE_RGB_FLT, srgb, TYPE_RGB_FLT, INTENT_RELATIVE_COLORIMETRIC,
                                                     cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE);
    float *values = precise == NULL ? NULL : malloc(pixels * 3 * sizeof(float));
    if (values != NULL) {
        for (size_t i = 0; i < pixels * 3; i++) values[i] = (float)rgb[i] / 255.0f;
        cmsDoTransform(precise, values, values, (cmsUInt32Number)pixels);
        for (size_t i = 0; i < pixels * 3; i++) {
            float v = values[i] * 255.0f + 0.5f;
            out[i] = (unsigned char)(v > 0 ? (v < 255 ? v : 255) : 0);
        }
        free(values);
    }
    if (precise != NULL) cmsDeleteTransform(precise);
    if (source != NULL) cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    return values != NULL ? 0 : -1;
}
