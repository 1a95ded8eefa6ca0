/* Internals shared by lcms_transform.c and lcms_fast.c; not part of the module's API. */
#ifndef LCMS_PRIVATE_H
#define LCMS_PRIVATE_H

#include "CLCMS.h"

#include <lcms2.h>

#define TILER_LCMS_FAST_NONE 0
#define TILER_LCMS_FAST_GRAY8 1
#define TILER_LCMS_FAST_RGB8 2
#define TILER_LCMS_OUT_STEPS 16384 /* linear-light steps of the output table: 0.2 sRGB levels per step at black */

typedef struct tiler_lcms_log tiler_lcms_log;
struct tiler_lcms_log {
    char *message;
    size_t capacity;
};

struct tiler_lcms_transform {
    cmsContext context;
    cmsHTRANSFORM transform; /* NULL when `fast` tables do the work */
    tiler_lcms_input input;
    int channels;
    tiler_lcms_log log;
    char message[512];
    int fast; /* TILER_LCMS_FAST_*: tables proven against `transform` at creation */
    unsigned char gray[256];
    float linear[3][256];
    float matrix[9];
    unsigned char encode[TILER_LCMS_OUT_STEPS + 1];
};

cmsToneCurve *tiler_lcms_srgb_curve(cmsContext context);
/* Builds the checked tables when they apply; returns 1 if `fast` is set (no lcms integer transform is needed). */
int tiler_lcms_prepare_fast(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination);
void tiler_lcms_apply_fast(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels);

#endif
