/* Internals shared by lcms_transform.c and lcms_fast.c; not part of the module's API. */
#ifndef LCMS_PRIVATE_H
#define LCMS_PRIVATE_H

#include "CLCMS.h"

#include <lcms2.h>

#define TILER_LCMS_FAST_NONE 0
#define TILER_LCMS_FAST_GRAY8 1
#define TILER_LCMS_FAST_MATRIX 2

struct tiler_lcms_matrix;

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
    int fast; /* TILER_LCMS_FAST_*: a gray table or the matrix tables replace `transform` */
    unsigned char gray[256];
    struct tiler_lcms_matrix *matrix; /* TILER_LCMS_FAST_MATRIX's tables (lcms_matrix.c) */
};

cmsToneCurve *tiler_lcms_srgb_curve(cmsContext context);
/* Builds the gray table or the matrix tables when they apply; returns 1 if `fast` is set (no lcms integer transform
 * is needed). */
int tiler_lcms_prepare_fast(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination);
void tiler_lcms_apply_fast(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels);

/* lcms_matrix.c: 8-bit RGB(A) matrix-shaper sources. prepare returns 1 and sets `matrix` when the checked tables
 * apply. */
int tiler_lcms_prepare_matrix(tiler_lcms_transform *t, cmsHPROFILE source, cmsHPROFILE destination);
void tiler_lcms_apply_matrix(const tiler_lcms_transform *t, const void *src, unsigned char *dst, size_t pixels);
int tiler_lcms_matrix_kernel(const tiler_lcms_transform *t); /* TILER_LCMS_KERNEL_*, or -1 */
void tiler_lcms_free_matrix(tiler_lcms_transform *t);

#endif
