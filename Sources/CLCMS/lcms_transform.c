/*
 * Colour conversion to sRGB over Little CMS 2.
 *
 * Why a shim: lcms reports errors through a handler rather than return values alone, and its defaults are
 * process-wide. Each transform here owns a cmsContext whose handler records the first message into the transform
 * (or into a caller's buffer while creating), so errors reach the Swift side as one line and are never printed.
 * Intent: relative colorimetric with black-point compensation, as browsers and `vips icc_transform` do. 16-bit
 * sources are read as 16-bit (big-endian, PNG's order) so they are converted before being reduced to 8 bits.
 * Transforms are built without lcms's one-pixel cache, so disjoint rows may be converted from several threads.
 */
#include "CLCMS.h"
#include "lcms_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tiler_lcms_on_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    tiler_lcms_log *log = cmsGetContextUserData(context);
    if (log == NULL || log->capacity == 0 || log->message[0] != 0) return;
    snprintf(log->message, log->capacity, "%s", text);
}

static cmsContext tiler_lcms_context(tiler_lcms_log *log) {
    cmsContext context = cmsCreateContext(NULL, log);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, tiler_lcms_on_error);
    return context;
}

static void tiler_lcms_fail(tiler_lcms_log *log, const char *what) {
    /* lcms's own message, if it sent one, is more specific: keep it after ours. */
    char detail[256];
    snprintf(detail, sizeof detail, "%s", log->message);
    if (detail[0] != 0) {
        snprintf(log->message, log->capacity, "%s (%s)", what, detail);
    } else {
        snprintf(log->message, log->capacity, "%s", what);
    }
}

static int tiler_lcms_space(cmsColorSpaceSignature signature) {
    switch (signature) {
    case cmsSigGrayData: return TILER_LCMS_SPACE_GRAY;
    case cmsSigRgbData: return TILER_LCMS_SPACE_RGB;
    case cmsSigCmykData: return TILER_LCMS_SPACE_CMYK;
    default: return TILER_LCMS_SPACE_OTHER;
    }
}

static const char *tiler_lcms_space_name(int space) {
    switch (space) {
    case TILER_LCMS_SPACE_GRAY: return "gray";
    case TILER_LCMS_SPACE_RGB: return "RGB";
    case TILER_LCMS_SPACE_CMYK: return "CMYK";
    default: return "another colour space";
    }
}

int tiler_lcms_profile_info(const void *icc, size_t length, int *space, char *description, size_t description_capacity,
                            char *message, size_t message_capacity) {
    if (message_capacity > 0) message[0] = 0;
    if (description_capacity > 0) description[0] = 0;
    tiler_lcms_log log = {message, message_capacity};
    cmsContext context = tiler_lcms_context(&log);
    if (context == NULL) {
        snprintf(message, message_capacity, "out of memory");
        return -1;
    }
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)length);
    if (profile == NULL) {
        tiler_lcms_fail(&log, "unreadable ICC profile");
        cmsDeleteContext(context);
        return -1;
    }
    *space = tiler_lcms_space(cmsGetColorSpace(profile));
    if (description_capacity > 0) {
        cmsUInt32Number n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", description,
                                                   (cmsUInt32Number)description_capacity);
        if (n == 0) description[0] = 0;
    }
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    if (message_capacity > 0) message[0] = 0; /* a missing description tag is not an error */
    return 0;
}

static cmsUInt32Number tiler_lcms_format(const tiler_lcms_input *in) {
    switch (in->space) {
    case TILER_LCMS_SPACE_GRAY:
        if (in->bytes == 2) return in->alpha ? TYPE_GRAYA_16_SE : TYPE_GRAY_16_SE;
        return in->alpha ? TYPE_GRAYA_8 : TYPE_GRAY_8;
    case TILER_LCMS_SPACE_RGB:
        if (in->bytes == 2) return in->alpha ? TYPE_RGBA_16_SE : TYPE_RGB_16_SE;
        return in->alpha ? TYPE_RGBA_8 : TYPE_RGB_8;
    case TILER_LCMS_SPACE_CMYK:
        if (in->bytes != 1 || in->alpha) return 0;
        return in->inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8;
    default: return 0;
    }
}

/* The sRGB tone curve as an ICC parametric curve (type 4). */
cmsToneCurve *tiler_lcms_srgb_curve(cmsContext context) {
    const cmsFloat64Number parameters[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    return cmsBuildParametricToneCurve(context, 4, parameters);
}

/* sRGB for RGB and CMYK sources; for gray, a gray profile with sRGB's tone curve and D50 white. */
static cmsHPROFILE tiler_lcms_destination(cmsContext context, int space) {
    if (space != TILER_LCMS_SPACE_GRAY) return cmsCreate_sRGBProfileTHR(context);
    cmsToneCurve *curve = tiler_lcms_srgb_curve(context);
    if (curve == NULL) return NULL;
    cmsHPROFILE profile = cmsCreateGrayProfileTHR(context, cmsD50_xyY(), curve);
    cmsFreeToneCurve(curve);
    return profile;
}

static tiler_lcms_transform *tiler_lcms_alloc(const tiler_lcms_input *input, char *message, size_t capacity) {
    tiler_lcms_transform *t = calloc(1, sizeof *t);
    if (t == NULL) {
        snprintf(message, capacity, "out of memory");
        return NULL;
    }
    t->input = *input;
    t->log.message = t->message;
    t->log.capacity = sizeof t->message;
    t->context = tiler_lcms_context(&t->log);
    if (t->context == NULL) {
        free(t);
        snprintf(message, capacity, "out of memory");
        return NULL;
    }
    return t;
}

/* Builds the lcms transform from `source` (closed here) and, where it applies, the checked fast tables. */
static tiler_lcms_transform *tiler_lcms_finish(tiler_lcms_transform *t, cmsHPROFILE source, char *message,
                                               size_t capacity) {
    int source_space = tiler_lcms_space(cmsGetColorSpace(source));
    cmsProfileClassSignature cls = cmsGetDeviceClass(source);
    const char *problem = NULL;
    char mismatch[160];
    if (cls == cmsSigLinkClass || cls == cmsSigAbstractClass || cls == cmsSigNamedColorClass) {
        problem = "device-link, abstract and named-colour profiles are not supported";
    } else if (source_space != t->input.space) {
        snprintf(mismatch, sizeof mismatch, "the profile is for %s but the image is %s",
                 tiler_lcms_space_name(source_space), tiler_lcms_space_name(t->input.space));
        problem = mismatch;
    }
    cmsUInt32Number in_format = tiler_lcms_format(&t->input);
    if (problem == NULL && in_format == 0) problem = "unsupported sample layout for colour conversion";
    cmsHPROFILE destination = problem == NULL ? tiler_lcms_destination(t->context, t->input.space) : NULL;
    if (problem == NULL && destination == NULL) problem = "cannot build the sRGB profile";
    if (problem == NULL) {
        int gray = t->input.space == TILER_LCMS_SPACE_GRAY;
        t->channels = (gray ? 1 : 3) + (t->input.alpha ? 1 : 0);
        cmsUInt32Number out_format = gray ? (t->input.alpha ? TYPE_GRAYA_8 : TYPE_GRAY_8)
                                          : (t->input.alpha ? TYPE_RGBA_8 : TYPE_RGB_8);
        /* No one-pixel cache: without it a transform may convert disjoint rows from several threads at once. */
        cmsUInt32Number flags =
            cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE | (t->input.alpha ? cmsFLAGS_COPY_ALPHA : 0);
        /* The gray table, when it applies, makes lcms's integer transform unnecessary. */
        if (!tiler_lcms_prepare_fast(t, source, destination)) {
            t->transform = cmsCreateTransformTHR(t->context, source, in_format, destination, out_format,
                                                 INTENT_RELATIVE_COLORIMETRIC, flags);
            if (t->transform == NULL) problem = "cannot convert this profile to sRGB";
        }
    }
    if (destination != NULL) cmsCloseProfile(destination);
    cmsCloseProfile(source);
    if (problem != NULL) {
        tiler_lcms_fail(&t->log, problem);
        snprintf(message, capacity, "%s", t->message);
        tiler_lcms_destroy(t);
        return NULL;
    }
    return t;
}

tiler_lcms_transform *tiler_lcms_create_from_icc(const void *icc, size_t length, const tiler_lcms_input *input,
                                                 char *message, size_t capacity) {
    if (capacity > 0) message[0] = 0;
    tiler_lcms_transform *t = tiler_lcms_alloc(input, message, capacity);
    if (t == NULL) return NULL;
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(t->context, icc, (cmsUInt32Number)length);
    if (source == NULL) {
        tiler_lcms_fail(&t->log, "unreadable ICC profile");
        snprintf(message, capacity, "%s", t->message);
        tiler_lcms_destroy(t);
        return NULL;
    }
    return tiler_lcms_finish(t, source, message, capacity);
}

tiler_lcms_transform *tiler_lcms_create_from_chunks(double gamma, const double *c, const tiler_lcms_input *input,
                                                    char *message, size_t capacity) {
    if (capacity > 0) message[0] = 0;
    tiler_lcms_transform *t = tiler_lcms_alloc(input, message, capacity);
    if (t == NULL) return NULL;
    /* gAMA is the encoding exponent; the decoding curve is its inverse. */
    cmsToneCurve *curve = gamma > 0 ? cmsBuildGamma(t->context, 1.0 / gamma) : tiler_lcms_srgb_curve(t->context);
    cmsHPROFILE source = NULL;
    if (curve != NULL) {
        cmsCIExyY white = {0.3127, 0.3290, 1.0};
        cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1.0}, {0.30, 0.60, 1.0}, {0.15, 0.06, 1.0}};
        if (c != NULL) {
            white = (cmsCIExyY){c[0], c[1], 1.0};
            primaries = (cmsCIExyYTRIPLE){{c[2], c[3], 1.0}, {c[4], c[5], 1.0}, {c[6], c[7], 1.0}};
        }
        if (input->space == TILER_LCMS_SPACE_GRAY) {
            source = cmsCreateGrayProfileTHR(t->context, &white, curve);
        } else {
            cmsToneCurve *curves[3] = {curve, curve, curve};
            source = cmsCreateRGBProfileTHR(t->context, &white, &primaries, curves);
        }
        cmsFreeToneCurve(curve);
    }
    if (source == NULL) {
        tiler_lcms_fail(&t->log, "invalid gAMA/cHRM values");
        snprintf(message, capacity, "%s", t->message);
        tiler_lcms_destroy(t);
        return NULL;
    }
    return tiler_lcms_finish(t, source, message, capacity);
}

void tiler_lcms_apply(tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels) {
    if (t->fast != TILER_LCMS_FAST_NONE) {
        tiler_lcms_apply_fast(t, src, dst, pixels);
        return;
    }
    while (pixels > 0) { /* cmsDoTransform counts pixels in 32 bits */
        cmsUInt32Number n = pixels > 0x10000000u ? 0x10000000u : (cmsUInt32Number)pixels;
        cmsDoTransform(t->transform, src, dst, n);
        src = (const unsigned char *)src + (size_t)n * (size_t)t->input.bytes *
                                               (size_t)((t->input.space == TILER_LCMS_SPACE_GRAY ? 1
                                                         : t->input.space == TILER_LCMS_SPACE_RGB ? 3 : 4) +
                                                        t->input.alpha);
        dst += (size_t)n * (size_t)t->channels;
        pixels -= n;
    }
}

int tiler_lcms_output_channels(const tiler_lcms_transform *t) { return t->channels; }

const char *tiler_lcms_method(const tiler_lcms_transform *t) {
    switch (t->fast) {
    case TILER_LCMS_FAST_GRAY8: return "lcms gray table";
    case TILER_LCMS_FAST_MATRIX:
        switch (tiler_lcms_matrix_kernel(t)) {
        case 2: return "matrix tables (AVX-512)";
        case 1: return "matrix tables (AVX2)";
        default: return "matrix tables";
        }
    default: return "lcms";
    }
}

void tiler_lcms_destroy(tiler_lcms_transform *t) {
    if (t == NULL) return;
    if (t->transform != NULL) cmsDeleteTransform(t->transform);
    tiler_lcms_free_matrix(t);
    if (t->context != NULL) cmsDeleteContext(t->context);
    free(t);
}
