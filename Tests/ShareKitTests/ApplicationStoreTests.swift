import Foundation
import ShareKit
import ShareTestSupport
import Testing
import TypeRegistry

/// `share types register` / `unregister` storage, and a receiver seeing registrations without a restart.
@Suite struct ApplicationStoreTests {
    @Test func registersReplacesAndUnregisters() throws {
        let dir = TemporaryDirectory("app-store")
        let store = ApplicationStore(directory: dir.at("data/share/applications"))
        let manifest = dir.at("Notes.plist")
        FileTree.writeText(
            manifest,
            TestApps.manifest(
                id: "com.Example.Notes", name: "Notes", typeID: "com.example.note", ext: "note",
                importer: TestApps.folder("copy", "Store")))

        let first = try store.register(manifestAt: manifest, homeDirectory: dir.at("home"))
        #expect(!first.replaced)
        #expect(first.registration.importer == .copy(folder: dir.at("Store")), "relative to the manifest's folder")
        #expect(FileManager.default.fileExists(atPath: dir.at("data/share/applications/com.example.notes.json")))

        Thread.sleep(forTimeInterval: 0.01)
        let second = try store.register(manifestAt: manifest, homeDirectory: dir.at("home"))
        #expect(second.replaced)
        #expect(
            second.registration.registeredAt == first.registration.registeredAt, "the first registration time is kept")
        #expect(store.load().applications.map(\.applicationID) == ["com.Example.Notes"])

        #expect(try store.unregister("COM.EXAMPLE.NOTES").name == "Notes")
        #expect(store.load().applications.isEmpty)
        #expect(throws: ApplicationStoreError.notRegistered("com.example.notes")) {
            try store.unregister("com.example.notes")
        }
    }

    @Test func anInvalidManifestIsRefusedWithItsReason() throws {
        let dir = TemporaryDirectory("app-store-bad")
        let store = ApplicationStore(directory: dir.at("apps"))
        let manifest = dir.at("Bad.plist")
        FileTree.writeText(
            manifest,
            TestApps.manifest(
                id: "com.example.bad", name: "Bad", typeID: "com.example.bad", ext: "bad",
                importer: "<key>Kind</key><string>command</string><key>Arguments</key><string>rm -rf ~</string>"))
        #expect {
            _ = try store.register(manifestAt: manifest, homeDirectory: dir.at("home"))
        } throws: { error in
            "\(error)".hasPrefix("com.example.bad: ") && "\(error)".contains("rm -rf ~")
        }
        #expect(store.load().applications.isEmpty)
    }

    @Test func theRegistryFollowsRegistrationsWithoutARestart() throws {
        let dir = TemporaryDirectory("app-store-reload")
        let store = ApplicationStore(directory: dir.at("apps"))
        let provider = RegistryProvider(
            applications: store, environment: ["HOME": dir.at("home"), "XDG_DATA_DIRS": "/usr/share"])
        #expect(provider.current().handlers(for: "com.example.note").best == nil)
        try TestApps.registerNotes(in: store, dir: dir)
        #expect(provider.current().handlers(for: "com.example.note").best?.applicationID == "com.example.notes")
        try store.unregister("com.example.notes")
        #expect(provider.current().handlers(for: "com.example.note").best == nil)
    }
}
