/// Headers that mark a file as a program, whatever its name says.
struct ExecutableSignature {
    /// The type the header shows.
    let type: TypeIdentifier
    /// A phrase for messages: `an ELF executable`, `a script (#!/bin/sh)`.
    let evidence: String

    /// Recognises ELF, PE/DOS (`MZ` followed by binary data), Mach-O and `#!` scripts; `nil` for anything else.
    init?(_ bytes: [UInt8]) {
        if bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) {
            self.type = .unixExecutable
            self.evidence = "an ELF executable"
        } else if bytes.starts(with: [0x23, 0x21]) {
            let line = bytes.prefix(64).prefix { $0 != 0x0A && $0 != 0x0D }
            self.type = .script
            self.evidence = "a script (\(String(decoding: line, as: UTF8.self)))"
        } else if bytes.starts(with: [0x4D, 0x5A]) && !SharedMimeInfo.looksLikeText(bytes) {
            // "MZ" alone also starts ordinary text; a DOS/PE header is followed by binary fields.
            self.type = "com.microsoft.windows-executable"
            self.evidence = "a DOS/Windows executable"
        } else if [
            [0xFE, 0xED, 0xFA, 0xCE], [0xFE, 0xED, 0xFA, 0xCF], [0xCE, 0xFA, 0xED, 0xFE], [0xCF, 0xFA, 0xED, 0xFE],
        ]
        .contains(where: { bytes.starts(with: $0) }) {
            self.type = .unixExecutable
            self.evidence = "a Mach-O executable"
        } else {
            return nil
        }
    }
}
