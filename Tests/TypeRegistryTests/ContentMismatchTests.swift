import Testing

@testable import TypeRegistry

/// A name that promises a format with a fixed signature, over content without it: the verdict of
/// ``ContentMismatch/check(claimedType:fileName:byDeclaredType:content:otherwise:)`` and what the
/// registry does with it.
@Suite struct ContentMismatchTests {
    /// A PDF that is also a ZIP archive: `%PDF-` first, a ZIP local header after it.
    static let polyglot: [UInt8] =
        Array("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n".utf8) + [0x50, 0x4B, 3, 4, 20, 0, 0, 0] + Fixtures.Bytes.padding

    @Test func everyListedFormatAcceptsItsOwnSignatureAndNamesAnother() {
        let samples: [(ContentSignature, [UInt8])] = [
            (.jpeg, Fixtures.Bytes.jpeg), (.png, Fixtures.Bytes.png), (.pdf, Fixtures.Bytes.pdf),
            (.zip, Fixtures.Bytes.zip), (.zip, [0x50, 0x4B, 5, 6] + Fixtures.Bytes.padding), (.zip, [0x50, 0x4B, 7, 8]),
            (.gif, Array("GIF89a".utf8) + Fixtures.Bytes.padding), (.gif, Array("GIF87a".utf8)),
            (.webp, Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)),
        ]
        for (signature, bytes) in samples {
            #expect(ContentSignature.recognise(bytes) == signature, "\(signature)")
            #expect(
                ContentMismatch.check(claimedType: signature.type, fileName: "x", content: bytes) == nil, "\(signature)")
        }
        // A RIFF that is not WebP (a WAV) is not WebP.
        #expect(!ContentSignature.webp.isCarried(by: Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8)))
    }

    @Test func aPDFZIPPolyglotNamedJPGIsNamedForWhatItIs() throws {
        let verdict = try #require(
            ContentMismatch.check(claimedType: "public.jpeg", fileName: "doc.jpg", content: Self.polyglot))
        #expect(verdict.found == .pdf)
        #expect(verdict.claim == .fileExtension("jpg"))
        #expect(verdict.description == "named .jpg but its content is a PDF document")
        #expect(
            ContentMismatch.check(claimedType: "public.png", fileName: "x/Scan.PNG", content: Fixtures.Bytes.zip)?
                .description == "named .png but its content is a ZIP archive")
    }

    @Test func pdfHeaderCountsWithinItsFirstKilobyteOnly() {
        let late = [UInt8](repeating: 0x20, count: 1000) + Array("%PDF-1.7\n".utf8)
        #expect(ContentMismatch.check(claimedType: .pdf, fileName: "a.pdf", content: late) == nil)
        let tooLate = [UInt8](repeating: 0x20, count: 1024) + Array("%PDF-1.7\n".utf8)
        #expect(
            ContentMismatch.check(claimedType: .pdf, fileName: "a.pdf", content: tooLate, otherwise: "text")?
                .description == "named .pdf but its content is text, not a PDF document")
    }

    @Test func unknownContentAndDeclaredTypesAreSaidPlainly() {
        #expect(
            ContentMismatch.check(claimedType: "com.compuserve.gif", fileName: "a.gif", content: Fixtures.Bytes.random)?
                .description == "named .gif but its content is not a GIF image (it has no GIF signature)")
        #expect(
            ContentMismatch.check(
                claimedType: "public.jpeg", fileName: "photo", byDeclaredType: true, content: Fixtures.Bytes.gzip)?
                .description == "declared public.jpeg by the sender but its content is not a JPEG image (it has no JPEG signature)")
    }

    @Test func typesOffTheListAndEmptyFilesAreNotJudged() {
        #expect(ContentMismatch.check(claimedType: "public.tiff", fileName: "a.tif", content: Fixtures.Bytes.pdf) == nil)
        #expect(ContentMismatch.check(claimedType: "public.plain-text", fileName: "a.txt", content: Fixtures.Bytes.pdf) == nil)
        #expect(ContentMismatch.check(claimedType: "public.jpeg", fileName: "a.jpg", content: []) == nil)
    }

    @Test func theRegistryKeepsAMismatchFromTheImporterOfTheNamedType() throws {
        let registry = TypeRegistry(
            sharedMimeInfo: Fixtures.database,
            applications: [try Fixtures.claimingApp("com.example.photos", types: ["public.jpeg"], rank: "Owner")])
        let forged = registry.resolve(ResolutionRequest(fileName: "doc.jpg", content: Self.polyglot))
        #expect(forged.type == "public.jpeg", "the name still gives the type")
        #expect(forged.mismatch?.found == .pdf)
        #expect(forged.warnings.contains("doc.jpg: named .jpg but its content is a PDF document; it is not handed to an importer"))
        guard case .keepInInbox(let mismatch, let passedOver) = registry.importChoice(for: forged) else {
            Issue.record("a PDF named .jpg must not reach the JPEG importer")
            return
        }
        #expect(mismatch.description == "named .jpg but its content is a PDF document")
        #expect(passedOver.applicationID == "com.example.photos")

        let genuine = registry.resolve(ResolutionRequest(fileName: "photo.jpg", content: Fixtures.Bytes.jpeg))
        #expect(genuine.mismatch == nil)
        guard case .application(let handler) = registry.importChoice(for: genuine) else {
            Issue.record("a real JPEG goes to the JPEG importer")
            return
        }
        #expect(handler.applicationID == "com.example.photos")

        // Without an application for the type, it goes to the receive folder as before, with the warning.
        let alone = Fixtures.registry.resolve(ResolutionRequest(fileName: "doc.jpg", content: Self.polyglot))
        #expect(Fixtures.registry.importChoice(for: alone) == .receiveFolder(.noHandler("public.jpeg")))
        #expect(!alone.warnings.isEmpty)
    }

    @Test func aProgramNamedJPGIsADisguiseNotAMismatch() {
        let resolution = Fixtures.registry.resolve(ResolutionRequest(fileName: "photo.jpg", content: Fixtures.Bytes.elf))
        #expect(resolution.contradiction != nil)
        #expect(resolution.mismatch == nil)
    }
}
