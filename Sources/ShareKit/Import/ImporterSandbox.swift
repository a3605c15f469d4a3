import ShareSystem
#if canImport(Glibc)
    import Glibc
#endif

/// What one run of a `command` importer may touch (docs/SECURITY.md, "Importers"), and its private
/// scratch folder.
///
/// The importer runs confined by Landlock (``LandlockRuleset``). It may:
/// - read and execute its own program and the system folders ``systemFolders`` (programs and
///   libraries);
/// - read ``readOnlyFolders``: `/etc`, `/proc` (Landlock keeps the environment, memory and
///   descriptors of processes outside the sandbox unreadable to a user without `CAP_SYS_PTRACE`)
///   and the CPU list; and use the harmless ``devices``;
/// - read the one document it is given (a bundle: everything inside it), never change it;
/// - read and write (never execute) in its store, the `Folder` of its `ShareImporter` (also its
///   working directory), and in a scratch folder of its own, `TMPDIR`, removed after the run.
///
/// Nothing else: not the home folder, not other applications' stores, not the inbox. From ABI 4 no
/// TCP bind or connect; from ABI 6 no signal and no abstract Unix socket that reaches a process
/// outside the sandbox. A kernel without Landlock, or with an older ABI, runs the importer with
/// what it can and ``warning`` says what is missing.
///
/// > Warning: Not thread-safe; one import uses it.
final class ImporterSandbox {
    /// Read and execute: where programs and their libraries live.
    static let systemFolders = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"]
    /// Read only: system configuration and what the kernel publishes (the Swift runtime reads
    /// `/proc/self/maps` to find its arguments; glibc reads the CPU list from `/sys`).
    static let readOnlyFolders = ["/etc", "/proc", "/sys/devices/system/cpu"]
    /// Device files an importer may use.
    static let devices: [(path: String, access: LandlockRuleset.Access)] = [
        ("/dev/null", [.readFile, .writeFile, .truncate]), ("/dev/zero", [.readFile]),
        ("/dev/full", [.readFile, .writeFile]), ("/dev/random", [.readFile]), ("/dev/urandom", [.readFile]),
    ]
    /// What an importer may do in its store and its scratch folder: everything but executing and
    /// making device files.
    static let storeRights: LandlockRuleset.Access = [
        .readFile, .readDirectory, .writeFile, .truncate, .removeFile, .removeDirectory, .makeDirectory,
        .makeRegularFile, .makeSymlink, .makeFIFO, .makeSocket, .refer,
    ]

    /// The Landlock ABI used (below 1: none, the importer runs unconfined).
    let abi: Int
    /// The document the importer is given (a file or a bundle's folder).
    let document: String
    /// Its store (`Folder`), if it declares one.
    let store: String?
    /// Its scratch folder (its `TMPDIR`).
    let scratch: String
    private var isDiscarded = false

    /// Creates a private scratch folder (mode 0700) in `temporaryFolder`.
    /// - Parameters:
    ///   - abi: the Landlock ABI to use (``LandlockRuleset/kernelABI``).
    ///   - temporaryFolder: where scratch folders go: the receiver's `TMPDIR`, else `/tmp`.
    init(abi: Int, document: String, store: String?, temporaryFolder: String?) throws(ImportFailure) {
        let base = temporaryFolder.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array("\(base)/share-import-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ImportFailure("cannot make a scratch folder in '\(base)': \(POSIX.errorText())")
        }
        scratch = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.abi = abi
        self.document = document
        self.store = store
    }

    deinit { discard() }

    /// Removes the scratch folder and everything the importer left in it.
    func discard() {
        guard !isDiscarded else { return }
        isDiscarded = true
        let slash = scratch.lastIndex(of: "/") ?? scratch.startIndex
        let folder = slash == scratch.startIndex ? "/" : String(scratch[..<slash])
        let parent = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        POSIX.removeTree(parent: parent, name: String(scratch[scratch.index(after: slash)...]))
        close(parent)
    }

    /// Whether the importer runs confined at all.
    var isConfined: Bool { abi >= 1 }

    /// The ruleset that confines a run of `program`, or `nil` when this kernel has no Landlock.
    func ruleset(program: String) throws(LandlockError) -> LandlockRuleset? {
        guard isConfined else { return nil }
        let ruleset = try LandlockRuleset(abi: abi)
        for folder in Self.systemFolders {
            try ruleset.allow(folder, [.execute, .readFile, .readDirectory], ifPresent: true)
        }
        for folder in Self.readOnlyFolders { try ruleset.allow(folder, [.readFile, .readDirectory], ifPresent: true) }
        for device in Self.devices { try ruleset.allow(device.path, device.access, ifPresent: true) }
        try ruleset.allow(program, [.execute, .readFile])
        try ruleset.allow(document, [.readFile, .readDirectory], followingLinks: false)
        if let store { try ruleset.allow(store, Self.storeRights) }
        try ruleset.allow(scratch, Self.storeRights)
        return ruleset
    }

    /// A one-line warning when the kernel cannot confine importers fully, saying what is missing;
    /// `nil` from ABI 6 on.
    var warning: String? {
        switch abi {
        case ..<1:
            let reason =
                switch -abi {
                case Int(ENOSYS): "this kernel has no Landlock (Linux 5.13 or later)"
                case Int(EOPNOTSUPP): "Landlock is disabled at boot (add it to the lsm= kernel parameter)"
                default: "Landlock is unavailable here (\(POSIX.errorText(Int32(truncatingIfNeeded: -abi))))"
                }
            return "the importer ran unconfined, with all your rights, because \(reason)"
        case 1...2:
            return "the importer ran confined to its folders, but this kernel's Landlock (ABI \(abi)) let it empty "
                + "files outside them and use the network (ABI 4, Linux 6.7, closes both)"
        case 3:
            return "the importer ran confined to its folders, but this kernel's Landlock (ABI 3) let it use the "
                + "network (ABI 4, Linux 6.7, forbids it)"
        case 4...5:
            return "the importer ran confined, but this kernel's Landlock (ABI \(abi)) let it signal your other "
                + "processes and reach their abstract Unix sockets (ABI 6, Linux 6.12, forbids it)"
        default:
            return nil
        }
    }

    /// What the importer may do, for a failure that looks like a denial: "(it runs confined: ...)".
    var confinementNote: String {
        let writes = store.map { "in its store '\($0)' and its TMPDIR" }
            ?? "in its TMPDIR (its ShareImporter declares no Folder)"
        let network = abi >= 4 ? ", and may not use TCP" : ""
        return "(it runs confined: it may write only \(writes), read only its program, system folders and the "
            + "document\(network))"
    }

    /// Whether an importer's output reports a refused access: `Permission denied` (EACCES, what
    /// Landlock answers for files and TCP) or `Operation not permitted` (EPERM, for signals).
    static func mentionsDenial(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return ["permission denied", "operation not permitted", "don't have permission", "errno 13]"].contains {
            lowered.contains($0)
        }
    }
}
