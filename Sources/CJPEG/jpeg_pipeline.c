/*
 * A large baseline JPEG decoded in two stages on two threads: entropy (Huffman) decoding on a thread of its own, the
 * inverse DCT and colour conversion on the caller's.
 *
 * Why: slicing a big JPEG is bound by its decoder, which libjpeg runs on one thread, and entropy decoding is most of
 * it: the 32768² Q90 4:4:4 sample decodes in 6.4 s with djpeg, 5.0 s of which remain at 1/8 scale, where the inverse
 * DCT is nearly free. While libjpeg's one thread decodes, the slicer's encoders wait on the rows; with the inverse DCT
 * and colour conversion moved to the caller (the slicer's reading thread, which otherwise waits), the serial part is
 * the Huffman decoding alone. Both stages call libjpeg's own modules — its entropy decoder's decode_mcu, its inverse
 * DCT and colour converter, set up by jpeg_start_decompress exactly as for jpeg_read_scanlines — in libjpeg's order,
 * so the rows are the same bytes; only the thread that runs each stage changes. The two stages touch disjoint parts of
 * the decompressor (the decoder's source, bit buffer and marker state; the converters' read-only tables).
 *
 * Only what that covers is pipelined (tiler_jpeg_pipeline_suits): a sequential Huffman file in one interleaved scan,
 * 8-bit, grey or three components all sampled 1×1 (no upsampling, whose context rows cross iMCU rows), decoded to RGB
 * or grey at full size, at least TILER_JPEG_PIPELINE_PIXELS; and a strict reader (a lenient one's warnings go to a
 * callback that must not run on another thread). Everything else reads through jpeg_read_scanlines.
 *
 * Memory: TILER_JPEG_PIPELINE_RING_ROWS iMCU rows of coefficients (128 bytes a block) and one iMCU row of samples per
 * component: O(width). Errors on the decoding thread jump to its own setjmp; the rows before the failing iMCU row are
 * delivered, then the caller gets the error, as jpeg_read_scanlines would give it.
 */
#define JPEG_INTERNALS
#include "jpeg_reader_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>

/* iMCU rows of coefficients the decoding thread may run ahead. Half a row (the old ring) left it waiting whenever the
 * caller was off converting or shrinking, which the 32768² sample's slicing measured at 6.1 s against 5.8 s with 8
 * rows (12 MB for that width, 3 rounds each; 4 rows 5.9 s, 16 rows no better). */
#define TILER_JPEG_PIPELINE_RING_ROWS 8
#define TILER_JPEG_PIPELINE_MIN_SLOTS 8
/* MCUs handed over at a time: small enough that a slot is still in cache when the other thread reads it. */
#define TILER_JPEG_PIPELINE_CHUNK 256
#define TILER_JPEG_PIPELINE_PIXELS ((uint64_t)16 << 20)

struct tiler_jpeg_pipeline {
    tiler_jpeg_reader *reader;
    pthread_t thread;
    int running; /* the thread was started (and the lock and condition made) */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    jmp_buf jmp; /* the decoding thread's */
    JBLOCK *ring;      /* `slots` slots of slot_bytes each */
    uint64_t slots;
    size_t slot_bytes;
    /* Guarded by lock. Chunk k is in slot k % SLOTS; a side that must wait asks to be woken only once the other is
     * half a ring ahead, so the threads do not wake each other for every chunk. */
    uint64_t produced;  /* chunks decoded */
    uint64_t consumed;  /* chunks converted (their slots free again) */
    uint64_t producer_waits_for; /* consumed count the decoding thread sleeps for, or 0 */
    uint64_t consumer_waits_for; /* produced count the caller sleeps for, or 0 */
    int failed;       /* the decoding thread stopped on an error (in the reader's code and message) */
    int ended;        /* the decoding thread read to EOI */
    int stopping;
    /* The caller's. */
    uint32_t group;    /* the next iMCU row to convert */
    uint64_t chunk;    /* the next chunk to take */
    uint64_t chunks;   /* in the image */
    uint32_t row;      /* rows delivered */
    uint32_t pending;  /* rows of the current iMCU row not yet delivered */
    uint32_t plane_row;
    int gave_error;
    JSAMPLE *samples;
    JSAMPROW rows[MAX_COMPONENTS][DCTSIZE];
    JSAMPARRAY planes[MAX_COMPONENTS];
};

int tiler_jpeg_pipeline_suits(j_decompress_ptr c) {
    if (c->progressive_mode || c->arith_code || c->data_precision != 8) return 0;
    if (c->quantize_colors || c->raw_data_out || c->buffered_image) return 0;
    if (c->output_width != c->image_width || c->output_height != c->image_height) return 0;
    if (c->inputctl->has_multiple_scans || c->comps_in_scan != c->num_components) return 0;
    if (!((c->num_components == 1 && c->out_color_space == JCS_GRAYSCALE) ||
          (c->num_components == 3 && c->out_color_space == JCS_RGB)))
        return 0;
    if (c->blocks_in_MCU != c->num_components || c->max_h_samp_factor != 1 || c->max_v_samp_factor != 1) return 0;
    for (int i = 0; i < c->num_components; i++) {
        if (c->comp_info[i].h_samp_factor != 1 || c->comp_info[i].v_samp_factor != 1) return 0;
    }
    return (uint64_t)c->output_width * c->output_height >= TILER_JPEG_PIPELINE_PIXELS;
}

/* The coefficients of ring slot `slot`. */
static JBLOCK *tiler_jpeg_pipeline_slot(tiler_jpeg_pipeline *p, uint64_t slot) {
    return (JBLOCK *)((unsigned char *)p->ring + (size_t)slot * p->slot_bytes);
}

/* One past the last MCU of the chunk that starts at column `first`. */
static JDIMENSION tiler_jpeg_pipeline_chunk_end(j_decompress_ptr c, JDIMENSION first) {
    return c->MCUs_per_row - first < TILER_JPEG_PIPELINE_CHUNK ? c->MCUs_per_row : first + TILER_JPEG_PIPELINE_CHUNK;
}

/* Ends the decoding thread with `*outcome` (its `failed` or `ended`) set: libjpeg's errors go to the reader's own
 * setjmp again, and the caller is woken. */
static void *tiler_jpeg_pipeline_exit(tiler_jpeg_pipeline *p, int *outcome) {
    pthread_mutex_lock(&p->lock);
    p->reader->jump = &p->reader->jmp;
    *outcome = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The decoding thread: each iMCU row's MCUs into a free slot, in order, then on to EOI. */
static void *tiler_jpeg_pipeline_decode(void *argument) {
    tiler_jpeg_pipeline *p = argument;
    j_decompress_ptr c = &p->reader->cinfo;
    volatile uint64_t chunk = 0;
    if (setjmp(p->jmp)) return tiler_jpeg_pipeline_exit(p, &p->failed);
    size_t per_mcu = (size_t)c->blocks_in_MCU;
    for (JDIMENSION row = 0; row < c->total_iMCU_rows; row++) {
        for (JDIMENSION first = 0; first < c->MCUs_per_row; first += TILER_JPEG_PIPELINE_CHUNK, chunk++) {
            uint64_t slot = chunk % p->slots;
            pthread_mutex_lock(&p->lock);
            if (chunk - p->consumed >= p->slots && !p->stopping) {
                p->producer_waits_for = chunk - p->slots / 2 + 1;
                while (p->consumed < p->producer_waits_for && !p->stopping) pthread_cond_wait(&p->changed, &p->lock);
                p->producer_waits_for = 0;
            }
            int stopping = p->stopping;
            pthread_mutex_unlock(&p->lock);
            if (stopping) return NULL;
            JBLOCK *blocks = tiler_jpeg_pipeline_slot(p, slot);
            JDIMENSION end = tiler_jpeg_pipeline_chunk_end(c, first);
            JBLOCKROW mcu[D_MAX_BLOCKS_IN_MCU];
            for (JDIMENSION column = first; column < end; column++) {
                JBLOCK *at = blocks + (size_t)(column - first) * per_mcu;
                /* As libjpeg does just before each MCU: the decoder writes only the coefficients that are not zero. */
                memset(at, 0, per_mcu * sizeof(JBLOCK));
                for (size_t b = 0; b < per_mcu; b++) mcu[b] = at + b;
                if (!(*c->entropy->decode_mcu)(c, mcu)) ERREXIT(c, JERR_CANT_SUSPEND);
            }
            pthread_mutex_lock(&p->lock);
            p->produced = chunk + 1;
            if (p->consumer_waits_for != 0 && p->produced >= p->consumer_waits_for) pthread_cond_broadcast(&p->changed);
            pthread_mutex_unlock(&p->lock);
        }
    }
    /* As jpeg_finish_decompress: the scan is over; read the markers to EOI (a file cut before it fails here). */
    (*c->inputctl->finish_input_pass)(c);
    while (!c->inputctl->eoi_reached) {
        if ((*c->inputctl->consume_input)(c) == JPEG_SUSPENDED) ERREXIT(c, JERR_CANT_SUSPEND);
    }
    return tiler_jpeg_pipeline_exit(p, &p->ended);
}

tiler_jpeg_pipeline *tiler_jpeg_pipeline_start(tiler_jpeg_reader *r) {
    j_decompress_ptr c = &r->cinfo;
    tiler_jpeg_pipeline *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->reader = r;
    uint64_t per_row = ((uint64_t)c->MCUs_per_row + TILER_JPEG_PIPELINE_CHUNK - 1) / TILER_JPEG_PIPELINE_CHUNK;
    p->chunks = per_row * c->total_iMCU_rows;
    size_t bytes = (size_t)TILER_JPEG_PIPELINE_CHUNK * (size_t)c->blocks_in_MCU * sizeof(JBLOCK);
    p->slot_bytes = (bytes + 63) & ~(size_t)63;
    p->slots = per_row * TILER_JPEG_PIPELINE_RING_ROWS;
    if (p->slots < TILER_JPEG_PIPELINE_MIN_SLOTS) p->slots = TILER_JPEG_PIPELINE_MIN_SLOTS;
    /* Rows padded past the last block and to 64 bytes: libjpeg's SIMD converters read whole vectors. */
    size_t row_bytes = (((size_t)c->MCUs_per_row * DCTSIZE + 63) & ~(size_t)63) + 64;
    p->samples = aligned_alloc(64, row_bytes * DCTSIZE * (size_t)c->num_components);
    int ready = p->samples != NULL;
    p->ring = ready ? aligned_alloc(64, p->slot_bytes * (size_t)p->slots) : NULL;
    if (p->ring == NULL) ready = 0;
    if (!ready) {
        tiler_jpeg_pipeline_stop(p);
        return NULL;
    }
    for (int ci = 0; ci < c->num_components; ci++) {
        for (int y = 0; y < DCTSIZE; y++) p->rows[ci][y] = p->samples + ((size_t)ci * DCTSIZE + (size_t)y) * row_bytes;
        p->planes[ci] = p->rows[ci];
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    r->jump = &p->jmp;
    if (pthread_create(&p->thread, NULL, tiler_jpeg_pipeline_decode, p) != 0) {
        r->jump = &r->jmp;
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
        tiler_jpeg_pipeline_stop(p);
        return NULL;
    }
    p->running = 1;
    return p;
}

/* The inverse DCT of the MCUs from column `first` in slot `slot` into the sample planes (as libjpeg's one-pass
 * coefficient controller does it). */
static void tiler_jpeg_pipeline_idct(tiler_jpeg_pipeline *p, uint64_t slot, JDIMENSION first) {
    j_decompress_ptr c = &p->reader->cinfo;
    JBLOCK *blocks = tiler_jpeg_pipeline_slot(p, slot);
    JDIMENSION end = tiler_jpeg_pipeline_chunk_end(c, first);
    for (int b = 0; b < c->blocks_in_MCU; b++) {
        jpeg_component_info *component = c->cur_comp_info[c->MCU_membership[b]];
        inverse_DCT_method_ptr inverse = c->idct->inverse_DCT[component->component_index];
        JSAMPARRAY output = p->planes[component->component_index];
        for (JDIMENSION column = first; column < end; column++) {
            JBLOCK *block = blocks + (size_t)(column - first) * (size_t)c->blocks_in_MCU + b;
            (*inverse)(c, component, (JCOEFPTR)*block, output, column * DCTSIZE);
        }
    }
}

int tiler_jpeg_pipeline_read(tiler_jpeg_reader *r, unsigned char *dst, size_t stride, uint32_t count,
                             uint32_t *rows_done) {
    tiler_jpeg_pipeline *p = r->pipeline;
    j_decompress_ptr c = &r->cinfo;
    uint32_t n = 0;
    *rows_done = 0;
    if (p->gave_error) return r->code;
    while (n < count && p->row < c->output_height) {
        if (p->pending == 0) {
            for (JDIMENSION first = 0; first < c->MCUs_per_row; first += TILER_JPEG_PIPELINE_CHUNK, p->chunk++) {
                uint64_t slot = p->chunk % p->slots;
                pthread_mutex_lock(&p->lock);
                if (p->produced <= p->chunk && !p->failed && !p->ended) {
                    uint64_t wanted = p->chunk + p->slots / 2;
                    p->consumer_waits_for = wanted < p->chunks ? wanted : p->chunks;
                    while (p->produced < p->consumer_waits_for && !p->failed) pthread_cond_wait(&p->changed, &p->lock);
                    p->consumer_waits_for = 0;
                }
                int full = p->produced > p->chunk;
                pthread_mutex_unlock(&p->lock);
                if (!full) {
                    r->error_row = (int64_t)p->row;
                    p->gave_error = 1;
                    *rows_done = n;
                    return r->code;
                }
                tiler_jpeg_pipeline_idct(p, slot, first);
                pthread_mutex_lock(&p->lock);
                p->consumed = p->chunk + 1;
                if (p->producer_waits_for != 0 && p->consumed >= p->producer_waits_for) pthread_cond_broadcast(&p->changed);
                pthread_mutex_unlock(&p->lock);
            }
            uint32_t left = c->output_height - p->group * DCTSIZE;
            p->pending = left < DCTSIZE ? left : DCTSIZE;
            p->plane_row = 0;
            p->group++;
        }
        uint32_t take = count - n < p->pending ? count - n : p->pending;
        JSAMPROW out[DCTSIZE];
        for (uint32_t i = 0; i < take; i++) out[i] = dst + (size_t)(n + i) * stride;
        (*c->cconvert->color_convert)(c, p->planes, p->plane_row, out, (int)take);
        n += take;
        p->row += take;
        p->plane_row += take;
        p->pending -= take;
    }
    if (p->row == c->output_height && !r->finished) {
        pthread_mutex_lock(&p->lock);
        while (!p->ended && !p->failed) pthread_cond_wait(&p->changed, &p->lock);
        int failed = p->failed;
        pthread_mutex_unlock(&p->lock);
        if (failed) {
            r->error_row = (int64_t)p->row;
            p->gave_error = 1;
            *rows_done = n;
            return r->code;
        }
        r->finished = 1;
    }
    *rows_done = n;
    return TILER_JPEG_OK;
}

void tiler_jpeg_pipeline_stop(tiler_jpeg_pipeline *p) {
    if (p == NULL) return;
    if (p->running) {
        pthread_mutex_lock(&p->lock);
        p->stopping = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        p->reader->jump = &p->reader->jmp;
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
    }
    free(p->ring);
    free(p->samples);
    free(p);
}
