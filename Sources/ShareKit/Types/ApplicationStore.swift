import Foundation
public import TypeRegistry
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The applications registered with `share types register`: one JSON file per application,
/// `<id>.json` (the identifier lower-cased) in `$XDG_DATA_HOME/share/applications`, holding the
/// validated ``ApplicationRegistration`` with its importer paths already absolute.
public struct ApplicationStore: Sendable {
    /// The folder of registrations.
    public let directory: String

    /// A store in `directory` (created on the first registration).
    public init(directory: String) {
        self.directory = directory
    }

    /// Every stored registration, oldest first, and a sentence for each file that cannot be read.
    public func load() -> (applications: [ApplicationRegistration], problems: [String]) {
        var applications: [ApplicationRegistration] = []
        var problems: [String] = []
        for name in fileNames() {
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append("cannot read the registration '\(path)'")
                continue
            }
            do {
                applications.append(try JSONDecoder().decode(ApplicationRegistration.self, from: data))
            } catch {
                problems.append(
                    "the registration '\(path)' is damaged; register the application again or delete the file")
            }
        }
        applications.sort {
            ($0.registeredAt, $0.applicationID.lowercased()) < ($1.registeredAt, $1.applicationID.lowercased())
        }
        return (applications, problems)
    }

    /// The registration of `applicationID` (ignoring case), if stored.
    public func registration(_ applicationID: String) -> ApplicationRegistration? {
        guard let path = path(for: applicationID), let data = FileManager.default.contents(atPath: path) else {
            return nil
        }
        return try? JSONDecoder().decode(ApplicationRegistration.self, from: data)
    }

    /// Validates a manifest and stores its registration, replacing an earlier registration of
    /// the same application (whose registration time is kept, so re-registering an updated
    /// manifest does not change who wins a tie).
    /// - Parameters:
    ///   - manifestPath: the Info.plist-style manifest; its relative importer paths start at its folder.
    ///   - homeDirectory: what `~` stands for in importer paths.
    ///   - bundleIdentifier: the application's identifier when the user gives it (`--bundle-id`), for a
    ///     manifest whose `CFBundleIdentifier` is an Xcode build setting.
    /// - Returns: the registration and whether it replaced an earlier one.
    /// - Throws: ``ApplicationStoreError``.
    public func register(
        manifestAt manifestPath: String, homeDirectory: String, bundleIdentifier: String? = nil
    ) throws(ApplicationStoreError)
        -> (registration: ApplicationRegistration, replaced: Bool)
    {
        var registration: ApplicationRegistration
        do {
            registration = try ApplicationRegistration.load(
                manifestAt: manifestPath, homeDirectory: homeDirectory, bundleIdentifier: bundleIdentifier)
        } catch let error as ManifestError {
            throw .invalidManifest(error.description)
        } catch let error as RegistrationError {
            throw .invalidManifest(error.description)
        } catch {
            throw .invalidManifest("\(error)")
        }
        guard let path = path(for: registration.applicationID) else {
            throw .invalidManifest(
                "CFBundleIdentifier '\(registration.applicationID)' is too long to be stored; use at most 200 bytes")
        }
        let earlier = self.registration(registration.applicationID)
        if let earlier {
            do {
                registration = try ApplicationRegistration.load(
                    manifestAt: manifestPath, homeDirectory: homeDirectory, registeredAt: earlier.registeredAt,
                    bundleIdentifier: bundleIdentifier)
            } catch {
                throw .invalidManifest("\(error)")
            }
        }
        do {
            try StagingArea.createDirectories(directory, mode: 0o700)
        } catch {
            throw .storageFailed(path: directory, reason: error.reason)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(registration)
        } catch {
            throw .storageFailed(path: path, reason: "\(error)")
        }
        do {
            try AtomicFile.write(data, to: path, mode: 0o644)
        } catch {
            throw .storageFailed(path: path, reason: error.description)
        }
        return (registration, earlier != nil)
    }

    /// Removes an application's registration.
    /// - Returns: the registration that was removed.
    /// - Throws: ``ApplicationStoreError/notRegistered(_:)`` when there is none.
    @discardableResult
    public func unregister(_ applicationID: String) throws(ApplicationStoreError) -> ApplicationRegistration {
        guard let path = path(for: applicationID), let registration = registration(applicationID) else {
            throw .notRegistered(applicationID)
        }
        guard unlink(path) == 0 else { throw .storageFailed(path: path, reason: POSIX.errorText()) }
        return registration
    }

    /// A summary of the folder's state (each file's name, size and change time), to notice changes cheaply.
    public func stateKey() -> String {
        var key = ""
        for name in fileNames() {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            key += "\(name):\(info.st_size):\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec);"
        }
        return key
    }

    private func fileNames() -> [String] {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        return (POSIX.directoryNames(consuming: fd) ?? []).filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }
    }

    /// `<directory>/<id lower-cased>.json`, or `nil` for an identifier that cannot be a file name.
    private func path(for applicationID: String) -> String? {
        let id = applicationID.lowercased()
        guard TypeIdentifier(id).isRecommendedForm, !id.contains("/"), id.utf8.count <= 200 else { return nil }
        return directory + "/" + id + ".json"
    }
}
