/* The streaming JPEG reader's state, shared by jpeg_reader.c and its pipelined decode (jpeg_pipeline.c). */
#ifndef TILER_JPEG_READER_INTERNAL_H
#define TILER_JPEG_READER_INTERNAL_H

#include "CJPEG.h"

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>

#define TILER_JPEG_MAX_WARNINGS 100
#define TILER_JPEG_MAX_SCANS 1000 /* a progressive file needs about 10; thousands is an attack */
#define TILER_JPEG_BATCH 16       /* rows per jpeg_read_scanlines call */

typedef struct tiler_jpeg_pipeline tiler_jpeg_pipeline;

struct tiler_jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jmp;
    /* Where libjpeg's errors jump: &jmp, or the pipeline thread's own while it decodes. */
    jmp_buf *jump;
    FILE *fp;
    /* The source libjpeg reads fp through (tiler_jpeg_source_* in jpeg_reader.c): TILER_JPEG_SOURCE_BYTES at a time. */
    struct jpeg_source_mgr source;
    JOCTET *source_buffer;
    int source_started;
    int lenient;
    tiler_jpeg_warning_fn warn;
    void *warn_context;
    int warnings;
    int saw_eof;

    int header_done;
    int started;
    int finished;
    int cmyk;    /* stored CMYK or YCCK: convert rows to RGB */
    int inverted; /* Adobe CMYK: samples are 255 - ink */
    int code;
    int64_t error_row;
    char message[JMSG_LENGTH_MAX + 64];
    unsigned char *cmyk_rows; /* TILER_JPEG_BATCH rows of width × 4 */
    tiler_jpeg_pipeline *pipeline; /* the pipelined decode, when the file suits it */
    int unpipelined; /* tiler_jpeg_reader_set_pipelined(reader, 0) */
};

/* Whether a started decompression can be pipelined (see jpeg_pipeline.c). */
int tiler_jpeg_pipeline_suits(j_decompress_ptr cinfo);

/* Starts the entropy-decoding thread; NULL where that cannot be done (the ordinary path is then used). */
tiler_jpeg_pipeline *tiler_jpeg_pipeline_start(tiler_jpeg_reader *reader);

/* tiler_jpeg_reader_read_rows through the pipeline. */
int tiler_jpeg_pipeline_read(tiler_jpeg_reader *reader, unsigned char *dst, size_t stride, uint32_t count,
                             uint32_t *rows_done);

/* Stops and joins the thread and frees the pipeline. Accepts NULL. */
void tiler_jpeg_pipeline_stop(tiler_jpeg_pipeline *pipeline);

#endif
