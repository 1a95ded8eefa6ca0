/*
 * Writes JPEG fixtures for the tests: gray, RGB, YCbCr at any sampling, CMYK with or without the
 * Adobe marker, YCCK, baseline or progressive, with an optional Exif APP1. It lives here because
 * only this target may include jpeglib.h; the tests know the colours they asked for.
 */
#include "CJPEG.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct tiler_jpeg_test_context {
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    char *message;
    size_t message_capacity;
} tiler_jpeg_test_context;

static void tiler_jpeg_test_on_error_exit(j_common_ptr cinfo) {
    tiler_jpeg_test_context *c = (tiler_jpeg_test_context *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(c->message, c->message_capacity, "%s", text);
    longjmp(c->jmp, 1);
}

static void tiler_jpeg_test_on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static J_COLOR_SPACE tiler_jpeg_test_space(int space) {
    switch (space) {
    case TILER_JPEG_CS_GRAY: return JCS_GRAYSCALE;
    case TILER_JPEG_CS_RGB: return JCS_RGB;
    case TILER_JPEG_CS_CMYK: return JCS_CMYK;
    case TILER_JPEG_CS_YCCK: return JCS_YCCK;
    default: return JCS_YCbCr;
    }
}

/* Everything between create and start_compress. Under the caller's setjmp. */
static void tiler_jpeg_test_configure(struct jpeg_compress_struct *cinfo, const tiler_jpeg_test_image *image) {
    static const J_COLOR_SPACE inputs[5] = {JCS_UNKNOWN, JCS_GRAYSCALE, JCS_UNKNOWN, JCS_RGB, JCS_CMYK};
    cinfo->image_width = image->width;
    cinfo->image_height = image->height;
    cinfo->input_components = image->components;
    cinfo->in_color_space = image->components >= 1 && image->components <= 4 ? inputs[image->components] : JCS_UNKNOWN;
    jpeg_set_defaults(cinfo);
    jpeg_set_colorspace(cinfo, tiler_jpeg_test_space(image->color_space));
    jpeg_set_quality(cinfo, image->quality, TRUE);
    for (int i = 0; i < cinfo->num_components; i++) {
        int luma = i == 0 || (image->color_space == TILER_JPEG_CS_YCCK && i == 3);
        cinfo->comp_info[i].h_samp_factor = luma ? image->h_samp : 1;
        cinfo->comp_info[i].v_samp_factor = luma ? image->v_samp : 1;
    }
    if (image->adobe_marker >= 0) cinfo->write_Adobe_marker = image->adobe_marker ? TRUE : FALSE;
    if (image->progressive) jpeg_simple_progression(cinfo);
}

int tiler_jpeg_write_test(const char *path, const tiler_jpeg_test_image *image, char *message,
                          size_t message_capacity) {
    struct jpeg_compress_struct cinfo;
    tiler_jpeg_test_context context = {.message = message, .message_capacity = message_capacity};
    unsigned char *volatile marker = NULL;
    FILE *volatile fp = fopen(path, "wb");
    if (fp == NULL) {
        snprintf(message, message_capacity, "cannot create %s", path);
        return TILER_JPEG_ERR_IO;
    }
    cinfo.err = jpeg_std_error(&context.err);
    context.err.error_exit = tiler_jpeg_test_on_error_exit;
    context.err.output_message = tiler_jpeg_test_on_output_message;
    cinfo.client_data = &context;
    if (setjmp(context.jmp)) {
        jpeg_destroy_compress(&cinfo);
        free(marker);
        fclose(fp);
        return TILER_JPEG_ERR_ARGUMENT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, fp);
    tiler_jpeg_test_configure(&cinfo, image);
    jpeg_start_compress(&cinfo, TRUE);
    if (image->exif != NULL) {
        marker = malloc(image->exif_length + 6);
        if (marker == NULL) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 0);
        memcpy(marker, "Exif\0\0", 6);
        memcpy(marker + 6, image->exif, image->exif_length);
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, marker, image->exif_length + 6);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(image->pixels + (size_t)cinfo.next_scanline * image->stride);
        (void)jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(marker);
    int failed = fclose(fp) != 0;
    if (failed) snprintf(message, message_capacity, "cannot write %s", path);
    return failed ? TILER_JPEG_ERR_IO : TILER_JPEG_OK;
}
