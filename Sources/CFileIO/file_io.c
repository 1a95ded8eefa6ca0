#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
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
