import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` for up to `timeout`.
public func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// Polls `condition` for up to `timeout` without holding a thread of the cooperative pool.
public func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Bytes written so far under an inbox's staging area (transfers in progress).
public func stagedBytes(in inbox: String) -> Int {
    let staging = inbox + "/.share-staging"
    var total = 0
    for path in FileTree.allPaths(staging) {
        var info = stat()
        if stat(staging + "/" + path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG { total += Int(info.st_blocks) * 512 }
    }
    return total
}
