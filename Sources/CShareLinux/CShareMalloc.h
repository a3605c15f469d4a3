// glibc's allocator settings: Swift's Glibc module does not show mallopt. `Receiver` (ShareKit,
// `internal import`) is its only user.
#ifndef CSHARE_MALLOC_H
#define CSHARE_MALLOC_H

#include <malloc.h>

/// Lets glibc's malloc use at most `count` arenas (mallopt M_ARENA_MAX); returns 1 when it took it.
static inline int CShareMalloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// Serves every allocation of at least `bytes` with its own mmap, unmapped when it is freed
/// (mallopt M_MMAP_THRESHOLD, which also stops glibc from raising the threshold by itself); returns
/// 1 when it took it.
static inline int CShareMalloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#endif
