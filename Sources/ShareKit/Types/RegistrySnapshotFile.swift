import Foundation
import TypeRegistry
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The user's snapshot of the merged type registry, `$XDG_CACHE_HOME/share/type-registry.snapshot`
/// (`~/.cache/share/…`): what merging the built-in types, shared-mime-info and the registered
/// applications gave (see ``TypeRegistry/snapshot(key:)``), so that a process that types one file
/// reads the answer in place instead of merging ~1,000 types first.
///
/// The snapshot is used only when its key is exactly what the registry would now be made from:
/// this executable (device, inode, size, change time), each data directory's `mime.cache`,
/// package folder and package XML files, and the registered applications (name, size and change
/// time of each). Anything else (a missing, damaged or older snapshot) means the registry is
/// merged from its sources as before and the snapshot written again (atomically, mode 0600). It is
/// a cache: deleting it is always safe.
struct RegistrySnapshotFile {
    /// The largest snapshot read, in bytes (a real one is about 0.5 MB).
    static let maximumSize = 64 * 1024 * 1024

    /// The snapshot's path.
    let path: String

    /// The snapshot file of `environment`'s user, or `nil` when there is no cache folder (no
    /// absolute `XDG_CACHE_HOME` or `HOME`) or this executable cannot be identified.
    init?(environment: [String: String]) {
        guard Self.executable != nil else { return nil }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            path = cache + "/share/type-registry.snapshot"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            path = home + "/.cache/share/type-registry.snapshot"
        } else {
            return nil
        }
    }

    /// The full key for a registry made from sources described by `sources`.
    func key(sources: String) -> String {
        "share type registry snapshot\nexecutable \(Self.executable ?? "?")\n\(sources)"
    }

    /// The registry of the snapshot, when it was written for `key`.
    func registry(key: String, applications: [ApplicationRegistration]) -> TypeRegistry? {
        guard let bytes = POSIX.readFile(path, limit: Self.maximumSize) else { return nil }
        return try? TypeRegistry(snapshot: bytes, key: key, applications: applications)
    }

    /// Writes the registry's snapshot for `key`; a failure only costs the next process the merge.
    func save(_ registry: TypeRegistry, key: String) {
        guard let bytes = registry.snapshot(key: key) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try StagingArea.createDirectories(directory, mode: 0o700)
            try AtomicFile.write(Data(bytes), to: path, mode: 0o600)
        } catch {
            return
        }
    }

    /// This executable's identity (a rebuilt or reinstalled share may merge differently), or `nil`.
    private static let executable: String? = {
        var info = stat()
        guard stat("/proc/self/exe", &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
    }()
}
