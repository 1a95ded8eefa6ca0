/*
 * CFileIO: the Linux file calls Swift's Glibc module does not expose (they are _GNU_SOURCE
 * extensions). Every exported symbol is prefixed tiler_; nothing here allocates, prints or aborts.
 */
#ifndef CFILEIO_H
#define CFILEIO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Reads up to `count` bytes at `offset` of `fd` only if they are in the page cache, without
 * waiting for the disk: preadv2 with RWF_NOWAIT. Returns the bytes read (possibly fewer than
 * asked when only part is cached), or -1 with errno: EAGAIN when reading would wait for the disk,
 * EOPNOTSUPP, EINVAL or ENOSYS when this kernel or file system cannot tell.
 */
ssize_t tiler_pread_cached(int fd, void *buffer, size_t count, off_t offset);

/*
 * Whether the file open as `fd` is, by its real path as the kernel sees it
 * (/proc/self/fd), `root` or inside it. `root` is a real path of `root_length` bytes.
 * Returns 1 inside, 0 outside, -1 when it cannot tell (no /proc, or an over-long path).
 */
int tiler_fd_is_inside(int fd, const char *root, size_t root_length);

/*
 * Whether all `size` bytes of `fd` (from offset 0) are in the page cache, so that sending them
 * (sendfile) cannot wait for the disk: cachestat(2), one system call, nothing copied.
 * Returns 1 when they all are, 0 when some are not, -1 when this kernel cannot tell (before 6.5).
 */
int tiler_is_in_page_cache(int fd, size_t size);

/*
 * Whether the `size` bytes of `fd` from `offset` (a tile inside an archive) are all in the page cache, as above.
 */
int tiler_is_range_in_page_cache(int fd, off_t offset, size_t size);

/*
 * Copies up to `count` bytes from `in` at `*in_offset` to `out` at `*out_offset` inside the kernel
 * (copy_file_range), advancing both offsets. Returns the bytes copied, or -1 with errno (EXDEV,
 * EINVAL, ENOSYS or EOPNOTSUPP where the kernel or file system cannot: copy by reading then).
 */
ssize_t tiler_copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t count);

/*
 * Inserts `length` bytes (a hole, reading as zeros) at `offset` of `fd`, shifting what follows
 * (fallocate's FALLOC_FL_INSERT_RANGE: no data is copied). Both must be multiples of the file system's block size and
 * `offset` below the file's size. Returns 0, or -1 with errno (EOPNOTSUPP where the file system cannot, EINVAL).
 */
int tiler_insert_range(int fd, off_t offset, off_t length);

/*
 * Frees the disk blocks of `length` bytes at `offset` of `fd`, which then read as zeros; the size is kept (fallocate's
 * FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE). Returns 0, or -1 with errno (EOPNOTSUPP where the file system cannot).
 */
int tiler_punch_hole(int fd, off_t offset, off_t length);

/*
 * Starts writing `length` bytes of `fd` from `offset` to disk, without waiting for it (sync_file_range's
 * SYNC_FILE_RANGE_WRITE). Returns 0, or -1 with errno.
 */
int tiler_start_writeback(int fd, off_t offset, off_t length);

/*
 * Lowers the calling thread's CPU priority to nice `value` (Linux keeps a nice value per thread, and threads it
 * starts inherit it; Swift's Glibc module hides gettid). Returns 0, or -1 with errno.
 */
int tiler_nice_this_thread(int value);

/*
 * Watches `folder` for files that arrive whole: moved into it, or closed after writing (inotify's IN_MOVED_TO and
 * IN_CLOSE_WRITE), and for files that leave it (moved out or deleted). Returns a non-blocking descriptor to poll for reading and to close, or -1 with errno (ENOSYS,
 * EMFILE, ENOSPC past fs.inotify.max_user_watches: look at the folder by time instead).
 */
int tiler_watch_arrivals(const char *folder);

/*
 * Reads the names of the files that arrived or left since the last read (folders left out) into `names`, each after
 * `+` (arrived whole) or `-` (left) and ending in a NUL, at most `size` bytes; sets `*overflowed` when events were lost (the kernel's queue overflowed, or a name did not
 * fit), after which the whole folder should be looked at. Returns the bytes written, or -1 with errno (EAGAIN: none
 * waiting).
 */
ssize_t tiler_read_arrivals(int fd, char *names, size_t size, int *overflowed);

#endif
