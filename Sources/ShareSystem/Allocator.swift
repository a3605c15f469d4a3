internal import CShareLinux

/// glibc's allocator settings (mallopt), which Swift's Glibc module does not show.
package enum Allocator {
    /// Lets malloc use at most `count` arenas (M_ARENA_MAX). Returns whether it took the setting.
    @discardableResult
    package static func limitArenas(_ count: Int) -> Bool {
        CShareLinux_malloc_limit_arenas(Int32(clamping: count)) == 1
    }

    /// Serves every allocation of at least `bytes` with its own mmap, unmapped when it is freed
    /// (M_MMAP_THRESHOLD, which also stops glibc from raising the threshold by itself). Returns
    /// whether it took the setting.
    @discardableResult
    package static func mapAllocations(ofAtLeast bytes: Int) -> Bool {
        CShareLinux_malloc_set_mmap_threshold(Int32(clamping: bytes)) == 1
    }
}
