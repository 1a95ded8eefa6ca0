#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t tiler_pread_cached(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = {.iov_base = buffer, .iov_len = count};
    ssize_t result;
    do {
        result = preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
    } while (result < 0 && errno == EINTR);
    return result;
}

int tiler_fd_is_inside(int fd, const char *root, size_t root_length) {
    char link[64];
    char path[PATH_MAX];
    if (snprintf(link, sizeof link, "/proc/self/fd/%d", fd) >= (int)sizeof link) return -1;
    ssize_t length = readlink(link, path, sizeof path);
    if (length < 0 || (size_t)length >= sizeof path) return -1;
    /* A file the kernel cannot reach from our root reads "(unreachable)/…": not inside. */
    if (root_length == 1 && root[0] == '/') return path[0] == '/' ? 1 : 0;
    if ((size_t)length < root_length || memcmp(path, root, root_length) != 0) return 0;
    return (size_t)length == root_length || path[root_length] == '/' ? 1 : 0;
}

/* cachestat(2), Linux 6.5: the same number on every architecture (the unified syscall table). */
#define TILER_SYS_CACHESTAT 451

struct tiler_cachestat_range {
    unsigned long long off;
    unsigned long long len;
};

struct tiler_cachestat {
    unsigned long long nr_cache;
    unsigned long long nr_dirty;
    unsigned long long nr_writeback;
    unsigned long long nr_evicted;
    unsigned long long nr_recently_evicted;
};

/* Set once a call said the kernel (or a seccomp filter) lacks cachestat: then no call is tried again. */
static int cachestat_missing = 0;

int tiler_is_in_page_cache(int fd, size_t size) {
    return tiler_is_range_in_page_cache(fd, 0, size);
}

int tiler_is_range_in_page_cache(int fd, off_t offset, size_t size) {
    if (size == 0) return 1;
    if (offset < 0) return -1;
    if (__atomic_load_n(&cachestat_missing, __ATOMIC_RELAXED)) return -1;
    struct tiler_cachestat_range range = {.off = (unsigned long long)offset, .len = size};
    struct tiler_cachestat status;
    memset(&status, 0, sizeof status);
    if (syscall(TILER_SYS_CACHESTAT, fd, &range, &status, 0) != 0) {
        if (errno == ENOSYS || errno == EPERM) __atomic_store_n(&cachestat_missing, 1, __ATOMIC_RELAXED);
        return -1;
    }
    long page = sysconf(_SC_PAGESIZE);
    /* The pages the range touches: from the one holding its first byte to the one holding its last. */
    unsigned long long first = (unsigned long long)offset / (unsigned long long)page;
    unsigned long long last = ((unsigned long long)offset + size - 1) / (unsigned long long)page;
    unsigned long long pages = last - first + 1;
    return status.nr_cache >= pages ? 1 : 0;
}

int tiler_start_writeback(int fd, off_t offset, off_t length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int tiler_insert_range(int fd, off_t offset, off_t length) {
    return fallocate(fd, FALLOC_FL_INSERT_RANGE, offset, length);
}

int tiler_punch_hole(int fd, off_t offset, off_t length) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length);
}

ssize_t tiler_copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t count) {
    return copy_file_range(in, in_offset, out, out_offset, count, 0);
}

int tiler_nice_this_thread(int value) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), value);
}
