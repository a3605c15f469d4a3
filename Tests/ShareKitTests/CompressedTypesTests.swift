import ShareKit
import Testing
import TypeRegistry

/// Which files the sender never tries to compress, by name, with this machine's shared-mime-info
/// database (package `shared-mime-info`) and with the built-in types alone.
@Suite struct CompressedTypesTests {
    /// The system's database only: no user folder.
    static let environment = ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share"]
    static let machine = CompressedTypes(registry: TypeRegistry.load(environment: environment))
    static let builtin = CompressedTypes(registry: TypeRegistry())

    @Test(arguments: [
        "photo.jpg", "photo.JPEG", "shot.png", "clip.webp", "phone.heic", "song.mp3", "voice.m4a", "track.flac",
        "movie.mkv", "movie.mp4", "a.zip", "a.tar.gz", "a.tgz", "a.tar.xz", "a.tar.zst", "a.tar.bz2", "x.zst", "x.xz",
        "x.7z", "x.rar", "x.lz4", "report.docx", "book.epub", "letter.odt", "app.jar", "app.apk", "pkg.deb",
        "font.woff2", "dir/sub/photo.jpg",
    ])
    func compressedFormatsAreKnown(_ name: String) {
        #expect(Self.machine.isCompressed(fileName: name))
    }

    @Test(arguments: [
        "main.swift", "notes.txt", "data.json", "server.log", "page.html", "Makefile", "README", "unknown.qqq",
        "a.tar", "disk.iso", "picture.bmp", "picture.ppm", "picture.tga", "icon.svg", "sound.wav", "scan.tiff",
        "paper.pdf", "db.sqlite", "no-extension",
    ])
    func otherFilesAreLeftToTheSample(_ name: String) {
        #expect(!Self.machine.isCompressed(fileName: name))
    }

    @Test func builtInTypesAloneKnowTheCommonFormats() {
        for name in ["photo.jpg", "song.mp3", "movie.mov", "a.zip", "a.gz", "a.7z"] {
            #expect(Self.builtin.isCompressed(fileName: name), "\(name)")
        }
        for name in ["a.tar", "notes.txt", "picture.bmp", "disk.iso", "sound.wav"] {
            #expect(!Self.builtin.isCompressed(fileName: name), "\(name)")
        }
    }

    @Test func aNameWithACompressedAndAnUncompressedMeaningIsLeftToTheSample() throws {
        // `.ts` is an MPEG transport stream to shared-mime-info, and also Qt translation source.
        let registry = TypeRegistry.load(environment: Self.environment)
        let meanings = registry.types(forFileName: "app.ts")
        try #require(meanings.count > 1, "\(meanings)")
        #expect(!Self.machine.isCompressed(fileName: "app.ts"))
    }

    @Test(arguments: [
        ("application/zstd", true), ("application/x-7z-compressed", true), ("application/epub+zip", true),
        ("application/vnd.oasis.opendocument.spreadsheet", true), ("font/woff2", true),
        ("image/svg+xml-compressed", true), ("text/plain", false), ("application/json", false),
        ("application/x-tar", false),
    ])
    func compressedMIMETypes(_ mime: String, _ compressed: Bool) {
        #expect(CompressedTypes.isCompressedMIMEType(mime) == compressed)
    }
}
