/// Whether a receiver keeps the execute bits a sender sets.
public enum ExecutableBits: String, Sendable, Hashable, CaseIterable {
    /// No received file is executable (the default: a received document is data).
    case removed
    /// Files inside a received folder (a bundle) keep their execute bits, for users who send code
    /// between their own machines; a file sent on its own never does.
    case keptInBundles
}

/// The permission bits a received entry gets (docs/SECURITY.md): the sender's bits are a wish. The
/// receiver's umask applies, nothing is ever writable by group or others, the owner can always
/// read (and, for folders, enter and change) what it received, and execute bits are removed unless
/// ``ExecutableBits/keptInBundles`` keeps them inside a bundle.
public enum ReceivedModes {
    /// The mode of a received regular file.
    /// - Parameters:
    ///   - mode: the mode the sender declared (permission bits only).
    ///   - inBundle: whether the file is inside a folder item.
    ///   - umask: the receiver's umask.
    public static func file(_ mode: UInt16, inBundle: Bool, executableBits: ExecutableBits, umask: UInt16) -> UInt16 {
        var bits = mode & 0o777
        if !(inBundle && executableBits == .keptInBundles) { bits &= ~0o111 }
        return (bits | 0o400) & ~umask & ~0o022 & 0o777 | 0o400
    }

    /// The mode of a received folder (the owner keeps rwx, so the folder can be moved and emptied).
    public static func directory(_ mode: UInt16, umask: UInt16) -> UInt16 {
        ((mode & 0o777) & ~umask & ~0o022) | 0o700
    }
}
