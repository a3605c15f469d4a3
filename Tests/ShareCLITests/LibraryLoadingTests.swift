import Foundation
import ShareTestSupport
import Testing

/// share opens OpenSSL, Avahi, D-Bus, libsystemd, libarchive, ldns and ICU only in the commands that
/// use them (docs/ARCHITECTURE.md, "C libraries"), which is what lets `share types resolve` start in
/// a few milliseconds; and a library that cannot be opened is a clear error, not a crash.
@Suite struct LibraryLoadingTests {
    /// The libraries share opens itself, as the dynamic loader names the files.
    static let openedOnUse = [
        "libssl.so", "libcrypto.so", "libavahi-client.so", "libdbus-1.so", "libsystemd.so", "libarchive.so",
        "libldns.so", "libicui18n.so",
    ]

    /// Every shared object the dynamic loader opened while `share` ran `arguments` (`LD_DEBUG=files`
    /// makes it list each one on stderr, whether the executable needs it or share opens it later).
    static func opened(_ arguments: [String], in directory: TemporaryDirectory) -> (ShareBinary.Result, Set<String>) {
        let machine = TestMachine("amy", in: directory)
        var environment = machine.environment
        environment["LD_DEBUG"] = "files"
        let result = ShareBinary.run(arguments, environment: environment)
        var files = Set<String>()
        for line in result.stderr.split(separator: "\n") {
            guard let start = line.range(of: "file=") else { continue }
            let name = line[start.upperBound...].prefix { $0 != " " && $0 != "\t" }
            files.insert(String(name.split(separator: "/").last ?? name))
        }
        return (result, files)
    }

    static func loaded(_ library: String, in files: Set<String>) -> Bool {
        files.contains { $0.hasPrefix(library) }
    }

    @Test func typingAFileLoadsNoneOfThem() {
        let dir = TemporaryDirectory("libraries-types")
        FileTree.writeText(dir.at("notes.md"), "# Notes\n")

        let (result, files) = Self.opened(["types", "resolve", "--mime", dir.at("notes.md")], in: dir)

        #expect(result.status == 0)
        #expect(result.stdout == "\(dir.at("notes.md")): text/markdown\n")
        #expect(files.contains { $0.hasPrefix("libc.so") }, "LD_DEBUG listed no files: \(result.stderr.prefix(500))")
        for library in Self.openedOnUse {
            #expect(!Self.loaded(library, in: files), "\(library) was loaded to type a file")
        }
    }

    @Test func aCommandOpensOnlyWhatItUses() {
        let dir = TemporaryDirectory("libraries-identity")

        // `share identity` reads the key and its certificate: OpenSSL, and nothing for the network.
        let (result, files) = Self.opened(["identity"], in: dir)

        #expect(result.status == 0)
        #expect(result.stdout.contains("Fingerprint:"))
        #expect(Self.loaded("libssl.so", in: files))
        for library in ["libavahi-client.so", "libarchive.so", "libldns.so", "libdbus-1.so"] {
            #expect(!Self.loaded(library, in: files), "\(library) was loaded to show the identity")
        }
    }

    @Test func aLibraryThatCannotBeOpenedIsAClearErrorOnlyWhereItIsNeeded() {
        let dir = TemporaryDirectory("libraries-broken")
        let machine = TestMachine("amy", in: dir)
        // A damaged OpenSSL found first (as a broken installation would put it).
        FileTree.makeFolder(dir.at("lib"))
        FileTree.writeText(dir.at("lib/libssl.so.3"), "not a library\n")
        FileTree.writeText(dir.at("notes.md"), "# Notes\n")
        var environment = machine.environment
        environment["LD_LIBRARY_PATH"] = dir.at("lib")

        let identity = ShareBinary.run(["identity"], environment: environment)
        let types = ShareBinary.run(["types", "resolve", "--mime", dir.at("notes.md")], environment: environment)

        #expect(identity.status == 1)
        #expect(identity.stdout.isEmpty)
        #expect(identity.stderr.hasPrefix("Error: share cannot load libssl.so.3 ("))
        #expect(identity.stderr.hasSuffix(
            "). Install Debian's package libssl3 (apt install libssl3), or reinstall share.\n"))
        #expect(types.status == 0, "typing needs no OpenSSL: \(types.stderr)")
        #expect(types.stdout == "\(dir.at("notes.md")): text/markdown\n")
    }
}
