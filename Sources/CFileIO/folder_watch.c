/* Watching a folder for files that arrive whole (inotify), for the server's inbox. */
#include "CFileIO.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int tiler_watch_arrivals(const char *folder) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -1;
    if (inotify_add_watch(fd, folder, IN_MOVED_TO | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

ssize_t tiler_read_arrivals(int fd, char *names, size_t size, int *overflowed) {
    /* Aligned as the kernel writes whole events into it. */
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    *overflowed = 0;
    ssize_t got = read(fd, events, sizeof events);
    if (got <= 0) return got;
    size_t written = 0;
    for (char *at = events; at < events + got;) {
        const struct inotify_event *event = (const struct inotify_event *)at;
        at += sizeof *event + event->len;
        if (event->mask & IN_Q_OVERFLOW) *overflowed = 1;
        if ((event->mask & IN_ISDIR) || event->len == 0) continue;
        size_t length = strnlen(event->name, event->len);
        /* A name that does not fit is left to the folder's next look. */
        if (written + length + 2 > size) {
            *overflowed = 1;
            continue;
        }
        names[written] = (event->mask & (IN_MOVED_FROM | IN_DELETE)) ? '-' : '+';
        memcpy(names + written + 1, event->name, length + 1);
        written += length + 2;
    }
    return (ssize_t)written;
}
