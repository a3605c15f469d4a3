// swift-tools-version:6.0
//
// share: the AirDrop of Linux. See README.md and docs/ARCHITECTURE.md.
//
// Layers (dependencies point down only). Each target's `dependencies:` below is the whole list of what
// its files import besides the toolchain's modules: `make test` checks it (Tests/Layers/check-imports.py).
//
//   share (executable)  ->  ShareCLI  ->  ShareKit; vocabulary: TypeRegistry, ShareDocuments, ShareTLS (value
//                           types ShareKit's API hands out); presentation/services: ShareSystemd, ShareNotifications,
//                           ShareQRCode.
//                           Discovery, DNS, connections and the protocol are ShareKit's: the CLI parses, asks
//                           ShareKit and renders.
//   ShareKit            ->  ShareTransport, ShareDiscovery, ShareDNS, ShareDNSUpdate, ShareTLS, ShareWire,
//                           ShareDocuments, TypeRegistry, ShareArchive, ShareUnicode, ShareCompression, ShareSystem
//   ShareTransport      ->  ShareTLS, ShareWire, ShareDocuments, ShareSystem
//   ShareWire           ->  ShareDocuments                      (pure Swift, sans-I/O)
//   ShareDocuments, TypeRegistry                                (pure Swift, sans-I/O)
//   ShareArchive        ->  ShareDocuments                      (safe tar.gz / zip extraction)
//   ShareUnicode -> CShareICU (look-alike names, UTS #39), ShareCompression -> CShareZstd (zstd DATA)
//   ShareTLS -> CShareOpenSSL, ShareSystem; ShareDiscovery -> CShareAvahi, ShareArchive -> CShareArchive (libarchive),
//   ShareDNS -> CShareResolv (libresolv), ShareDNSUpdate -> CShareLDNS (libldns), ShareDNS,
//   ShareKit, ShareArchive -> ShareSystem -> CShareLinux (system calls: one owner), ShareSystemd -> CShareSystemd (libsystemd),
//   ShareNotifications -> CShareDBus (libdbus), ShareQRCode -> CShareQREncode (libqrencode)
//   (C: Debian's libraries and share's own shims)
//   every library wrapper -> CShareLibrary (the loader that opens its library on first use)

import PackageDescription

/// Where Debian keeps libdbus's headers: one folder for all, one for this architecture's
/// `dbus-arch-deps.h` (what `pkg-config --cflags dbus-1` says, without also linking libdbus). Given to
/// ShareNotifications and to every target that imports it (built for testing, they read its module).
let dbusHeaders: [SwiftSetting] = {
    #if arch(x86_64)
        let multiarch = "x86_64-linux-gnu"
    #elseif arch(arm64)
        let multiarch = "aarch64-linux-gnu"
    #else
        let multiarch = "unknown"
    #endif
    return [.unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0", "-Xcc", "-I/usr/lib/\(multiarch)/dbus-1.0/include"])]
}()

let package = Package(
    name: "share",
    products: [
        .executable(name: "share", targets: ["share"]),
        .library(name: "ShareKit", targets: ["ShareKit"]),
        .library(name: "TypeRegistry", targets: ["TypeRegistry"]),
    ],
    targets: [
        // C libraries from Debian, one wrapper module each. A wrapper's header includes only its library's
        // headers and CShareLibrary's table macro, and carries `static inline` shims for the library's macros.
        // Most are not linked: each wrapper module opens its library the first time it is needed
        // (Sources/CShareLibrary), so a command that needs none (`share types resolve`) never loads them.
        // Their headers are in /usr/include, so they need no pkg-config (which would link them); D-Bus's two
        // folders are given to the one module that reads them (`dbusHeaders`). Debian packages: Makefile
        // `PACKAGES`.
        .systemLibrary(name: "CShareOpenSSL"),  // libssl-dev
        .systemLibrary(name: "CShareAvahi"),  // libavahi-client-dev
        .systemLibrary(name: "CShareICU"),  // libicu-dev: the spoof checker
        .systemLibrary(name: "CShareArchive"),  // libarchive-dev
        .systemLibrary(name: "CShareLDNS"),  // libldns-dev: RFC 2136 updates signed with TSIG
        .systemLibrary(name: "CShareDBus"),  // libdbus-1-dev
        .systemLibrary(name: "CShareSystemd"),  // libsystemd-dev: sd_notify
        .systemLibrary(name: "CShareHTTPParser"),  // libhttp-parser-dev: HTTP/1.1 for LocalSend
        .systemLibrary(name: "CShareQREncode"),  // libqrencode-dev: the QR code of `share send --link`
        // Zstandard: per-chunk compression of DATA frames (docs/PROTOCOL.md §8). Linked (small, and every
        // transfer uses it).
        .systemLibrary(
            name: "CShareZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),

        // C shims, as C targets: `include/X.h` declares prototypes with <stdint.h> and <stddef.h> types only,
        // and a `.c` file includes the system headers, so no libc struct (stat, timespec, in_addr...) gets a
        // second defining module beside Swift's Glibc (docs/ARCHITECTURE.md, "C shims").
        // The loader behind every wrapper's function table: dlopen, and a message naming the package.
        .target(name: "CShareLibrary"),
        // Linux system calls glibc 2.36 does not wrap (openat2, Landlock) or Swift cannot see (renameat2,
        // syncfs, mallopt), and the confined spawn of importers. Imported by ShareSystem only.
        .target(name: "CShareLinux"),
        // glibc's stub resolver (libresolv, part of libc6-dev): wide-area DNS-SD lookups. Linked.
        .target(name: "CShareResolv", linkerSettings: [.linkedLibrary("resolv")]),

        // Pure layers: no C, no sockets, no policy about I/O.
        .target(name: "ShareDocuments"),
        .target(name: "ShareWire", dependencies: ["ShareDocuments"]),
        .target(name: "ShareLocalSend", dependencies: ["ShareDocuments"]),
        .target(name: "TypeRegistry"),

        // The one owner of system calls: Errno, EINTR retries, the Linux calls glibc does not wrap, Landlock,
        // the confined spawn, the descriptor limit. The only Swift code that imports CShareLinux.
        .target(name: "ShareSystem", dependencies: ["CShareLinux"]),

        // The only code that sees C.
        .target(name: "ShareTLS", dependencies: ["CShareOpenSSL", "CShareLibrary", "ShareSystem"]),
        .target(name: "ShareDiscovery", dependencies: ["CShareAvahi", "CShareLibrary"]),
        .target(name: "ShareDNS", dependencies: ["CShareResolv"]),
        .target(name: "ShareDNSUpdate", dependencies: ["CShareLDNS", "CShareLibrary", "ShareDNS"]),
        .target(name: "ShareTransport", dependencies: ["ShareTLS", "ShareWire", "ShareDocuments", "ShareSystem"]),
        .target(name: "ShareArchive", dependencies: ["CShareArchive", "CShareLibrary", "ShareSystem", "ShareDocuments"]),
        .target(name: "ShareUnicode", dependencies: ["CShareICU", "CShareLibrary"]),
        .target(name: "ShareCompression", dependencies: ["CShareZstd"]),
        .target(name: "ShareSystemd", dependencies: ["CShareSystemd", "CShareLibrary"]),
        .target(name: "ShareHTTP", dependencies: ["CShareHTTPParser", "CShareLibrary"]),
        .target(name: "ShareQRCode", dependencies: ["CShareQREncode", "CShareLibrary"]),
        .target(name: "ShareNotifications", dependencies: ["CShareDBus", "CShareLibrary"], swiftSettings: dbusHeaders),

        // Use cases and the command line.
        .target(
            name: "ShareKit",
            dependencies: [
                "ShareTransport", "ShareDiscovery", "ShareDNS", "ShareDNSUpdate", "ShareTLS", "ShareWire",
                "ShareDocuments", "TypeRegistry", "ShareArchive", "ShareUnicode", "ShareCompression", "ShareSystem",
                "ShareLocalSend", "ShareHTTP",
            ]
        ),
        .target(
            name: "ShareCLI",
            dependencies: [
                "ShareKit", "TypeRegistry", "ShareDocuments", "ShareTLS", "ShareSystemd", "ShareNotifications",
                "ShareQRCode",
            ],
            swiftSettings: dbusHeaders
        ),
        .executableTarget(name: "share", dependencies: ["ShareCLI"], swiftSettings: dbusHeaders),

        // Example applications (Examples/*/README.md): their manifests register them with share.
        .executableTarget(name: "scarybugs", dependencies: ["ShareArchive"], path: "Examples/ScaryBugs/Tool"),
        .executableTarget(name: "beertracker", path: "Examples/BeerTracker/Importer"),
        .executableTarget(name: "customfile", dependencies: ["ShareArchive"], path: "Examples/CustomFile/Importer"),
        .executableTarget(name: "notesgroup", path: "Examples/SharedContainer/Tool"),

        // Tests.
        // Compile-only: a file that imports only Glibc beside every C module (Tests/ImportProbe/LibcOnly.swift).
        // `swift build` builds it debug and release, so a libc struct leaking into a C module fails the build.
        .target(
            name: "ShareImportProbe",
            dependencies: [
                "CShareArchive", "CShareAvahi", "CShareDBus", "CShareICU", "CShareLDNS", "CShareLibrary", "CShareLinux",
                "CShareOpenSSL", "CShareQREncode", "CShareResolv", "CShareSystemd", "CShareZstd",
            ],
            path: "Tests/ImportProbe", swiftSettings: dbusHeaders),
        .target(
            name: "ShareTestSupport", dependencies: ["ShareKit", "ShareTLS", "ShareWire", "TypeRegistry"],
            path: "Tests/ShareTestSupport"
        ),
        .testTarget(name: "ShareDocumentsTests", dependencies: ["ShareDocuments"]),
        .testTarget(name: "ShareWireTests", dependencies: ["ShareWire", "ShareDocuments"]),
        .testTarget(name: "ShareLocalSendTests", dependencies: ["ShareLocalSend", "ShareDocuments"]),
        .testTarget(name: "ShareHTTPTests", dependencies: ["ShareHTTP"]),
        .testTarget(name: "ShareQRCodeTests", dependencies: ["ShareQRCode"]),
        .testTarget(name: "TypeRegistryTests", dependencies: ["TypeRegistry"]),
        .testTarget(name: "ShareArchiveTests", dependencies: ["ShareArchive", "ShareTestSupport"]),
        .testTarget(name: "ShareUnicodeTests", dependencies: ["ShareUnicode"]),
        .testTarget(name: "ShareCompressionTests", dependencies: ["ShareCompression", "ShareTestSupport"]),
        .testTarget(name: "ShareTLSTests", dependencies: ["ShareTLS", "ShareTestSupport"]),
        .testTarget(name: "ShareDNSTests", dependencies: ["ShareDNS", "ShareDNSUpdate"]),
        .testTarget(
            name: "ShareDiscoveryTests", dependencies: ["ShareDiscovery", "ShareTestSupport", "ShareDiscoveryProbe"]),
        // The DATA compressor alone, by level, run by hand (Tests/Benchmarks/CompressionBench/main.swift).
        .executableTarget(
            name: "CompressionBench", dependencies: ["ShareKit", "ShareWire", "TypeRegistry"],
            path: "Tests/Benchmarks/CompressionBench"),
        // Runs inside simulated LAN hosts (Tests/Hosts/lan.sh) for the multi-host discovery tests.
        .executableTarget(
            name: "ShareDiscoveryProbe", dependencies: ["ShareDiscovery"], path: "Tests/Hosts/ShareDiscoveryProbe"),
        // The fault lab's TCP proxy as a process (Tests/Hosts/README.md), for tests across simulated hosts.
        .executableTarget(
            name: "ShareFaultProxy", dependencies: ["ShareTestSupport"], path: "Tests/Hosts/ShareFaultProxy"),
        .testTarget(
            name: "ShareKitTests",
            dependencies: [
                "ShareKit", "ShareSystem", "ShareTestSupport", "ShareDocuments", "ShareWire", "ShareTLS", "ShareTransport",
                "ShareDiscovery", "ShareDNS",
                "TypeRegistry", "ShareArchive",
            ]
        ),
        .testTarget(
            name: "ShareNotificationsTests", dependencies: ["ShareNotifications", "ShareTestSupport"], swiftSettings: dbusHeaders),
        .testTarget(
            name: "ShareCLITests", dependencies: ["ShareCLI", "ShareKit", "ShareTestSupport", "ShareDiscovery"],
            swiftSettings: dbusHeaders),
        // share itself between simulated LAN hosts (needs root; see Tests/Hosts).
        .testTarget(
            name: "ShareNetworkTests",
            dependencies: ["ShareTestSupport", "share", "ShareDiscoveryProbe", "ShareFaultProxy"]),
    ]
)

// Fuzz targets (Tests/Fuzz, built by `make fuzz`): libFuzzer supplies `main`, so with them declared
// `swift test` would fail to link ("undefined symbol FuzzFrameDecoder_main"). They exist only when the
// FUZZ environment variable is set: `FUZZ=1 swift build --sanitize=fuzzer --product FuzzFrameDecoder`.
if Context.environment["FUZZ"] != nil {
    package.targets.append(
        .target(name: "FuzzSupport", dependencies: ["ShareWire", "ShareDocuments"], path: "Tests/Fuzz/FuzzSupport"))
    let fuzzTargets: [(String, [Target.Dependency])] = [
        ("FuzzFrameDecoder", ["ShareWire", "ShareDocuments"]), ("FuzzOffer", ["ShareWire", "ShareDocuments"]),
        ("FuzzBundlePaths", ["ShareWire", "ShareDocuments"]), ("FuzzZstdFrame", ["ShareCompression"]),
        ("FuzzLocalSend", ["ShareLocalSend", "ShareDocuments"]),
    ]
    for (name, dependencies) in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Tests/Fuzz/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}

/// The C targets, which take no Swift settings.
let cTargets: Set<String> = ["CShareLibrary", "CShareLinux", "CShareResolv"]

// Strict Swift 6 settings for every Swift target, in the manner of swift-log's manifest.
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        // SE-0335: `any` spelled out for existentials.
        .enableUpcomingFeature("ExistentialAny"),
        // SE-0444: a file sees only the modules it imports.
        .enableUpcomingFeature("MemberImportVisibility"),
        // SE-0409: imports are internal unless marked otherwise, so no C type leaks into public API.
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
