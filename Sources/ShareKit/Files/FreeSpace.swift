import ShareSystem

/// Whether a receiver has room for an offer, keeping a margin free so that receiving never fills
/// a disk to the last byte (docs/SECURITY.md, "Limits").
///
/// The margin is 2% of the filesystem's size, at least 1 MiB and at most 64 MiB (the
/// ``ReceiverConfiguration/freeSpaceMargin``): 64 MiB on any disk of 3.2 GB or more, less on a small
/// one, so a 100 MB stick can still take a 90 MB file.
public enum FreeSpace {
    /// The margin kept free on a filesystem of `totalBytes`, at most `maximum`.
    public static func margin(totalBytes: UInt64, maximum: UInt64) -> UInt64 {
        min(maximum, max(1 << 20, totalBytes / 50))
    }

    /// Why `bytes` do not fit where they would be written (the inbox, and the receive folder when
    /// it is on another filesystem: documents are copied there once more), or nil when they fit.
    static func shortfall(for bytes: UInt64, in folders: [String], maximumMargin: UInt64) -> String? {
        var seen: [UInt64] = []
        for folder in folders {
            guard let file = try? FileStatus(path: folder), let space = try? FilesystemSpace(holding: folder) else {
                continue
            }
            if seen.contains(file.device) { continue }
            seen.append(file.device)
            let available = space.availableBytes
            let margin = margin(totalBytes: space.totalBytes, maximum: maximumMargin)
            if bytes > available || available - bytes < margin {
                return "the offer needs \(ByteCount.format(bytes)) and only \(ByteCount.format(available)) is free, "
                    + "of which \(ByteCount.format(margin)) is kept free so the disk never fills up "
                    + "(2% of the disk, from \(ByteCount.format(1 << 20)) to \(ByteCount.format(maximumMargin)))"
            }
        }
        return nil
    }
}
