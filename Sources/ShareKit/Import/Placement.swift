import ShareSystem
import ShareDocuments

#if canImport(Glibc)
    import Glibc
#endif

/// Puts a document into a folder under its name or the next free one, never replacing anything.
///
/// On one filesystem a move is a single `renameat2(RENAME_NOREPLACE)`. Across filesystems (an
/// inbox in `~/.local/share`, a receive folder on another disk), and for a copy, the document is
/// copied into a scratch folder inside the destination (``ScratchFolder``), made durable with one
/// `syncfs` of that filesystem, then renamed into place the same way; the inbox copy is deleted
/// only afterwards, by the caller. So a document is never visible under its final name before it
/// is complete. The cost of crossing filesystems is one full copy of the data and a sync.
enum Placement {
    /// Move (the inbox copy goes) or copy (the caller keeps the source).
    enum Mode {
        case move
        case copy
    }

    /// A bundle's own permission bits and modification time, applied once it is in place.
    struct FolderAttributes {
        var mode: UInt16
        var seconds: Int64
        var nanoseconds: UInt32
    }

    /// Places `name` (in the folder `sourceFD`) into `folder` under `preferred` or the next free name.
    /// - Returns: the absolute path where it landed.
    static func place(
        _ name: String, from sourceFD: Int32, into folder: String, mode: Mode, preferred: String,
        folderAttributes: FolderAttributes?
    ) throws(ImportFailure) -> String {
        do {
            try StagingArea.createDirectories(folder)
        } catch {
            throw ImportFailure("cannot use the folder '\(folder)': \(error.reason)")
        }
        if mode == .move {
            let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folderFD >= 0 else { throw ImportFailure("cannot open the folder '\(folder)': \(POSIX.errorText())") }
            defer { close(folderFD) }
            var source = stat()
            var target = stat()
            if fstat(sourceFD, &source) == 0, fstat(folderFD, &target) == 0, source.st_dev == target.st_dev {
                let finalName = try renameNoReplace(
                    name, from: sourceFD, preferred: preferred, into: folderFD, folder: folder)
                apply(folderAttributes, to: finalName, in: folderFD)
                _ = fsync(folderFD)
                return folder + "/" + finalName
            }
        }
        let scratch = try ScratchFolder(in: folder)
        defer { scratch.discard() }
        try TreeCopy.copy(name, from: sourceFD, to: name, in: scratch.fd)
        try scratch.sync()
        let finalName = try scratch.moveIntoPlace(name, preferred: preferred)
        apply(folderAttributes, to: finalName, in: scratch.destinationFD)
        _ = fsync(scratch.destinationFD)
        return folder + "/" + finalName
    }

    /// Places `name` (in the folder `sourceFD`) into the receive folder opened at the start, through
    /// its descriptor, under `preferred` or the next free name; refuses when the folder's path no
    /// longer names that folder (removed or replaced).
    /// - Returns: the absolute path where it landed.
    static func place(
        _ name: String, from sourceFD: Int32, into folder: ReceiveFolder, preferred: String,
        folderAttributes: FolderAttributes?
    ) throws(ImportFailure) -> String {
        if let problem = folder.problem() { throw ImportFailure(problem) }
        var source = stat()
        var target = stat()
        if fstat(sourceFD, &source) == 0, fstat(folder.descriptor, &target) == 0, source.st_dev == target.st_dev {
            let finalName = try renameNoReplace(
                name, from: sourceFD, preferred: preferred, into: folder.descriptor, folder: folder.path)
            apply(folderAttributes, to: finalName, in: folder.descriptor)
            _ = fsync(folder.descriptor)
            return folder.path + "/" + finalName
        }
        let scratch = try ScratchFolder(inFolder: folder.descriptor, path: folder.path)
        defer { scratch.discard() }
        try TreeCopy.copy(name, from: sourceFD, to: name, in: scratch.fd)
        try scratch.sync()
        let finalName = try scratch.moveIntoPlace(name, preferred: preferred)
        apply(folderAttributes, to: finalName, in: scratch.destinationFD)
        _ = fsync(scratch.destinationFD)
        return folder.path + "/" + finalName
    }

    /// Renames `name` from `sourceFD` into `destinationFD` as `preferred` or `preferred (2)`, … .
    static func renameNoReplace(
        _ name: String, from sourceFD: Int32, preferred: String, into destinationFD: Int32, folder: String
    )
        throws(ImportFailure) -> String
    {
        var candidate = preferred
        var number = 1
        while true {
            if LinuxCalls.renameWithoutReplacing(sourceFD, name, to: destinationFD, candidate) == 0 { return candidate }
            guard errno == EEXIST else {
                throw ImportFailure("cannot move '\(name)' into '\(folder)': \(POSIX.errorText())")
            }
            number += 1
            if number > 9999 {
                throw ImportFailure("every name from '\(preferred)' to '\(preferred) (9999)' is taken in '\(folder)'")
            }
            candidate = AlternativeName.candidate(for: preferred, number: number)
        }
    }

    private static func apply(_ attributes: FolderAttributes?, to name: String, in folderFD: Int32) {
        guard let attributes else { return }
        var times = POSIX.times(seconds: attributes.seconds, nanoseconds: attributes.nanoseconds)
        _ = fchmodat(folderFD, name, mode_t(attributes.mode), 0)
        _ = utimensat(folderFD, name, &times, AT_SYMLINK_NOFOLLOW)
    }
}
