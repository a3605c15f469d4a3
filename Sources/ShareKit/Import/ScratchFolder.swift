import ShareSystem
import ShareDocuments

#if canImport(Glibc)
    import Glibc
#endif

/// A private folder in which something is built before it is renamed into a destination folder:
/// `.share-staging/<random>/` inside the destination, so on its filesystem, locked with `flock`
/// while in use (a later import into the same folder removes scratch folders nobody holds, as
/// the receiver does for its staging areas).
///
/// > Warning: Not thread-safe; one import uses it.
final class ScratchFolder {
    /// The destination folder.
    let destination: String
    /// The destination folder's descriptor.
    let destinationFD: Int32
    /// The scratch folder's descriptor.
    let fd: Int32
    /// The scratch folder's absolute path.
    let path: String
    private let stagingFD: Int32
    private let name: String
    private var isFinished = false

    /// Creates a scratch folder in `destination` (created when missing).
    convenience init(in destination: String) throws(ImportFailure) {
        do {
            try StagingArea.createDirectories(destination)
        } catch {
            throw ImportFailure("cannot use the folder '\(destination)': \(error.reason)")
        }
        StagingArea.removeAbandoned(in: destination)
        let destinationFD = open(destination, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard destinationFD >= 0 else {
            throw ImportFailure("cannot open the folder '\(destination)': \(POSIX.errorText())")
        }
        try self.init(owning: destinationFD, path: destination)
    }

    /// Creates a scratch folder in the open folder `folderFD` (whose path is `path`, for messages).
    convenience init(inFolder folderFD: Int32, path: String) throws(ImportFailure) {
        let destinationFD = dup(folderFD)
        guard destinationFD >= 0 else { throw ImportFailure("cannot use the folder '\(path)': \(POSIX.errorText())") }
        try self.init(owning: destinationFD, path: path)
    }

    private init(owning destinationFD: Int32, path destination: String) throws(ImportFailure) {
        if mkdirat(destinationFD, StagingArea.folderName, 0o700) != 0 && errno != EEXIST {
            let reason = POSIX.errorText()
            close(destinationFD)
            throw ImportFailure("cannot write into the folder '\(destination)': \(reason)")
        }
        let stagingFD = openat(destinationFD, StagingArea.folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        let name = StagingArea.randomName()
        guard stagingFD >= 0, mkdirat(stagingFD, name, 0o700) == 0 else {
            let reason = POSIX.errorText()
            if stagingFD >= 0 { close(stagingFD) }
            close(destinationFD)
            throw ImportFailure("cannot write into the folder '\(destination)': \(reason)")
        }
        let fd = openat(stagingFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = POSIX.errorText()
            close(stagingFD)
            close(destinationFD)
            throw ImportFailure("cannot write into the folder '\(destination)': \(reason)")
        }
        self.destination = destination
        self.destinationFD = destinationFD
        self.stagingFD = stagingFD
        self.fd = fd
        self.name = name
        self.path = destination + "/" + StagingArea.folderName + "/" + name
    }

    deinit {
        discard()
        close(fd)
        close(stagingFD)
        close(destinationFD)
    }

    /// Makes what was written durable (one `syncfs` of the destination's filesystem).
    func sync() throws(ImportFailure) {
        if LinuxCalls.syncFilesystem(fd) != 0 {
            throw ImportFailure("cannot sync '\(destination)': \(POSIX.errorText())")
        }
    }

    /// Renames `item` (inside the scratch folder) into the destination under `preferred`, or the
    /// next free name (`Name (2).ext`, …); never replaces anything. Returns the name used.
    func moveIntoPlace(_ item: String, preferred: String) throws(ImportFailure) -> String {
        try Placement.renameNoReplace(item, from: fd, preferred: preferred, into: destinationFD, folder: destination)
    }

    /// Deletes the scratch folder and what is left in it. Safe to call more than once.
    func discard() {
        guard !isFinished else { return }
        isFinished = true
        for child in POSIX.directoryNames(consuming: dup(fd)) ?? [] {
            POSIX.removeTree(parent: fd, name: child)
        }
        _ = unlinkat(stagingFD, name, AT_REMOVEDIR)
        _ = unlinkat(destinationFD, StagingArea.folderName, AT_REMOVEDIR)
    }
}
