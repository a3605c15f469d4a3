import Foundation
import Testing

@testable import TypeRegistry

/// Rules 3 and 5: names first, the content only where names disagree or are missing (the
/// shared-mime-info spec's recommended checking order, §2.12), the safety check kept apart, and a
/// usable MIME type for every result. The expected MIME types are what `gio info` reports on Debian 12.
@Suite struct CheckingOrderTests {
    let registry = Fixtures.registry

    private func resolve(_ name: String, _ text: String) -> Resolution {
        resolve(name, Array(text.utf8))
    }

    private func resolve(_ name: String, _ bytes: [UInt8]?) -> Resolution {
        registry.resolve(ResolutionRequest(fileName: name, content: bytes))
    }

    /// Weak magic (Perl's `use strict`, a shell's `SHELL=`) no longer overrides an unambiguous name,
    /// and files without `#!` are not withheld as programs.
    @Test(arguments: [
        ("app.js", "\"use strict\";\nfunction main() { return 1; }\n", "com.netscape.javascript-source",
            "application/javascript"),
        ("build.mk", "SHELL=/bin/sh\nall:\n\techo built\n", "public.make-source", "text/x-makefile"),
        ("Util.pm", "package Util;\nuse strict;\n1;\n", "public.perl-script", "application/x-perl"),
        ("Makefile", "SHELL := /bin/bash\n", "public.make-source", "text/x-makefile"),
        ("main.C", "int main() {}\n", "public.c-plus-plus-source", "text/x-c++src"),
        ("main.c", "int main() {}\n", "public.c-source", "text/x-csrc"),
        ("notes.TXT", "plain words\n", "public.plain-text", "text/plain"),
    ])
    func anUnambiguousNameDecides(name: String, text: String, type: String, mime: String) {
        let resolution = resolve(name, text)
        #expect(resolution.type == TypeIdentifier(type), "\(resolution.trace)")
        #expect(resolution.mimeType == mime)
        #expect(resolution.basis == .fileName)
        #expect(!resolution.isExecutable)
        #expect(resolution.isSafe)
    }

    @Test func threeCertificatesKeepOneType() {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2\n-----END CERTIFICATE-----\n"
        let trusted = "-----BEGIN TRUSTED CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2\n-----END TRUSTED CERTIFICATE-----\n"
        let der: [UInt8] =
            [0x30, 0x82, 0x03, 0x5D, 0x30, 0x82, 0x02, 0x45, 0xA0, 0x03, 0x02, 0x01, 0x02] + Fixtures.Bytes.padding
        let types = [resolve("ca.crt", pem), resolve("root.crt", trusted), resolve("server.crt", der)]
        #expect(Set(types.map(\.type)).count == 1)
        #expect(types.map(\.mimeType) == Array(repeating: "application/x-x509-ca-cert", count: 3))
    }

    /// Conflicting names: the content decides between them (a PEM key named .key is not a Keynote
    /// document), and a tie the content cannot settle keeps the name with the highest weight.
    @Test func conflictingNamesAreSettledByTheContent() {
        let key = resolve("server.key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n")
        #expect(key.mimeType == "application/pgp-keys")
        #expect(key.nameTypes.count == 2)
        #expect(key.contentMIMEType == "application/pgp-keys")
        let keynote = resolve("talk.key", Fixtures.Bytes.zip)
        #expect(keynote.mimeType == "application/vnd.apple.keynote")
        let python3 = resolve("tool.py", "#!/usr/bin/env python3\nprint('hi')\n")
        #expect(python3.type == "public.python-script")
        #expect(python3.mimeType == "text/x-python3")
        #expect(resolve("tool.py", "print 'hi'\n").mimeType == "text/x-python")
    }

    @Test func withoutANameTheContentDecides() {
        #expect(resolve("received", Fixtures.Bytes.pdf).type == .pdf)
        let text = resolve("received", "words\n")
        #expect(text.type == .plainText)
        #expect(text.mimeType == "text/plain")
        let binary = resolve("received", Fixtures.Bytes.random)
        #expect(binary.type == .data)
        #expect(binary.mimeType == "application/octet-stream")
        let unknown = resolve("received.qqzz", Fixtures.Bytes.random)
        #expect(unknown.type.isDynamic)
        #expect(unknown.mimeType == "application/octet-stream")
    }

    /// An empty file is text, whatever its name, as gio reports it.
    @Test func anEmptyFileIsPlainText() {
        for name in ["photo.png", "__init__.py", "empty"] {
            let resolution = resolve(name, [UInt8]())
            #expect(resolution.type == .plainText, "\(name)")
            #expect(resolution.mimeType == "text/plain")
        }
        // Not read at all is not empty: the name decides.
        #expect(resolve("photo.png", nil).type == "public.png")
    }

    /// The executable check is about the content alone; typing does not change it.
    @Test func programsAreFlaggedWhateverTheirType() {
        let script = resolve("runme", "#!/opt/weird/interp\nrun\n")
        #expect(script.isExecutable)
        #expect(script.mimeType == "text/plain")
        #expect(script.contradiction == nil, "no name claims anything else")
        let elf = resolve("tool", Fixtures.Bytes.elf)
        #expect(elf.isExecutable)
        #expect(elf.type == .unixExecutable)
        #expect(!resolve("module.pm", "package Module;\n1;\n").isExecutable)
    }

    /// Rule 5: every type has a usable MIME type, its own or its nearest supertype's.
    @Test func everyTypeHasAUsableMIMEType() {
        #expect(registry.preferredMIMEType(for: .script) == "text/plain")
        #expect(registry.preferredMIMEType(for: .sourceCode) == "text/plain")
        #expect(registry.preferredMIMEType(for: "com.apple.rtfd") == "inode/directory")
        #expect(registry.preferredMIMEType(for: .folder) == "inode/directory")
        #expect(registry.preferredMIMEType(for: .item) == "application/octet-stream")
        #expect(registry.preferredMIMEType(for: "public.mp3") == "audio/mpeg")
        #expect(
            registry.preferredMIMEType(for: DynamicType(tagClass: .filenameExtension, tag: "qqzz").identifier)
                == "application/octet-stream")
        #expect(
            registry.preferredMIMEType(for: DynamicType(tagClass: .mimeType, tag: "application/x-qq").identifier)
                == "application/x-qq")
        // A script declared by the sender gets text/plain, not nothing.
        let declared = registry.resolve(
            ResolutionRequest(fileName: "job", declaredType: "public.script", content: Array("echo hi\n".utf8)))
        #expect(declared.type == .script)
        #expect(declared.mimeType == "text/plain")
        for type in registry.allTypes.map(\.identifier) {
            let mime = registry.preferredMIMEType(for: type)
            #expect(MIMEType.normalize(mime) == mime, "\(type): \(mime)")
        }
    }
}
