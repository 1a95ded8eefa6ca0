/*
 * The mappings of indexed restart JPEGs, kept within a budget. Each mapping is one entry in the process's memory map,
 * and the kernel allows vm.max_map_count of them (65,530 by default): a server holding tens of thousands of a VMS
 * slide's JPEGs open would start failing mmap, and with it unrelated allocations. So at most a budget of them stay
 * mapped; the least recently read is unmapped first, and mapped again (after checking it is still the file indexed)
 * when a region needs it. A mapping being copied from is pinned and never unmapped under the copy.
 */
#include "jpeg_restart_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
/* Mapped indexes, most recently read first. */
static tiler_jpeg_restart_index *newest, *oldest;
static size_t mapped_count, map_budget, unmaps;

/* A quarter of vm.max_map_count: the rest is left to malloc, the libraries and the other files the server maps. */
static size_t default_budget(void) {
    size_t budget = 16382;
    FILE *file = fopen("/proc/sys/vm/max_map_count", "re");
    if (file != NULL) {
        unsigned long limit = 0;
        if (fscanf(file, "%lu", &limit) == 1 && limit >= 64) budget = (size_t)(limit / 4);
        fclose(file);
    }
    return budget;
}

static void unlink_index(tiler_jpeg_restart_index *index) {
    if (index->newer != NULL) index->newer->older = index->older; else newest = index->older;
    if (index->older != NULL) index->older->newer = index->newer; else oldest = index->newer;
    index->newer = index->older = NULL;
}

static void link_newest(tiler_jpeg_restart_index *index) {
    index->older = newest;
    index->newer = NULL;
    if (newest != NULL) newest->newer = index;
    newest = index;
    if (oldest == NULL) oldest = index;
}

/* Unmaps the least recently read unpinned mappings while more than the budget are mapped. Under maps_lock. */
static void trim(void) {
    if (map_budget == 0) map_budget = default_budget();
    for (tiler_jpeg_restart_index *index = oldest; index != NULL && mapped_count > map_budget;) {
        tiler_jpeg_restart_index *newer = index->newer;
        if (index->pins == 0) {
            unlink_index(index);
            munmap((void *)index->map, index->map_length);
            index->map = NULL;
            mapped_count--;
            unmaps++;
        }
        index = newer;
    }
}

int tiler_jpeg_restart_map_adopt(tiler_jpeg_restart_index *index, int fd, const struct stat *status, char *message, size_t message_size) {
    void *map = mmap(NULL, (size_t)status->st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        tiler_jpeg_restart_message(message, message_size, strerror(errno));
        return TILER_JPEG_ERR_IO;
    }
    pthread_mutex_lock(&maps_lock);
    index->map = map;
    index->map_length = (size_t)status->st_size;
    index->device = status->st_dev;
    index->inode = status->st_ino;
    index->modified = status->st_mtim;
    mapped_count++;
    link_newest(index);
    trim();
    pthread_mutex_unlock(&maps_lock);
    return TILER_JPEG_OK;
}

int tiler_jpeg_restart_map_pin(tiler_jpeg_restart_index *index, char *message, size_t message_size) {
    pthread_mutex_lock(&maps_lock);
    if (index->map == NULL) {
        /* Mapped again only if it is still the very file indexed: the index says where its intervals lie. */
        int fd = open(index->path, O_RDONLY | O_CLOEXEC);
        struct stat status = {0};
        int same = fd >= 0 && fstat(fd, &status) == 0 && status.st_dev == index->device && status.st_ino == index->inode &&
                   (size_t)status.st_size == index->map_length && status.st_mtim.tv_sec == index->modified.tv_sec &&
                   status.st_mtim.tv_nsec == index->modified.tv_nsec;
        void *map = same ? mmap(NULL, index->map_length, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        int saved = errno;
        if (fd >= 0) close(fd);
        if (map == MAP_FAILED) {
            pthread_mutex_unlock(&maps_lock);
            const char *why = fd < 0                                       ? strerror(saved)
                              : same                                         ? "the JPEG could not be mapped"
                              : (size_t)status.st_size < index->map_length ? "the JPEG is shorter than when it was indexed"
                                                                             : "the JPEG changed since it was indexed";
            tiler_jpeg_restart_message(message, message_size, why);
            return TILER_JPEG_ERR_IO;
        }
        index->map = map;
        mapped_count++;
    } else {
        unlink_index(index);
    }
    link_newest(index);
    index->pins++;
    trim();
    pthread_mutex_unlock(&maps_lock);
    return TILER_JPEG_OK;
}

void tiler_jpeg_restart_map_unpin(tiler_jpeg_restart_index *index) {
    pthread_mutex_lock(&maps_lock);
    index->pins--;
    trim();
    pthread_mutex_unlock(&maps_lock);
}

void tiler_jpeg_restart_map_forget(tiler_jpeg_restart_index *index) {
    pthread_mutex_lock(&maps_lock);
    if (index->map != NULL) {
        unlink_index(index);
        munmap((void *)index->map, index->map_length);
        index->map = NULL;
        mapped_count--;
    }
    pthread_mutex_unlock(&maps_lock);
}

void tiler_jpeg_restart_set_map_budget(size_t maps) {
    pthread_mutex_lock(&maps_lock);
    map_budget = maps == 0 ? default_budget() : maps;
    trim();
    pthread_mutex_unlock(&maps_lock);
}

void tiler_jpeg_restart_map_statistics(size_t *mapped, size_t *budget, uint64_t *unmapped) {
    pthread_mutex_lock(&maps_lock);
    if (map_budget == 0) map_budget = default_budget();
    *mapped = mapped_count;
    *budget = map_budget;
    *unmapped = (uint64_t)unmaps;
    pthread_mutex_unlock(&maps_lock);
}
