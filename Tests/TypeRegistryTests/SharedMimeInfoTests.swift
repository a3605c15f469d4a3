import Foundation
import Testing

@testable import TypeRegistry

@Suite struct SharedMimeInfoTests {
    @Test func loadsInstalledDatabase() {
        let start = ContinuousClock.now
        let database = SharedMimeInfo.load(packageDirectories: ["/usr/share/mime/packages"])
        let elapsed = ContinuousClock.now - start
        print("loaded \(database.definitions.count) types in \(elapsed); warnings: \(database.warnings.prefix(5))")
        #expect(database.definitions.count > 800)
        #expect(database.mimeTypes(forFileName: "archive.tar.gz").first?.mimeType == "application/x-compressed-tar")
        print(database.sniff(Array("#!/bin/sh\necho hi\n".utf8)))
        print(database.sniff([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + Array(repeating: 0, count: 60)))
    }
}
