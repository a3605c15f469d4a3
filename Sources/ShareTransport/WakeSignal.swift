import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A descriptor that becomes readable once ``signal()`` is called, so a thread that waits in
/// `poll(2)` on a socket can also be woken by another thread (a user's answer, a cancellation).
///
/// The pipe is closed when the signal is deallocated.
public final class WakeSignal: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    private let signalled = Atomic<Bool>(false)

    /// Creates an unsignalled wake.
    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The descriptor to poll for `POLLIN`.
    public var descriptor: Int32 { readEnd }

    /// Whether ``signal()`` was called.
    public var isSignalled: Bool { signalled.load(ordering: .acquiring) }

    /// Wakes every waiter, now and later (once signalled, it stays signalled).
    public func signal() {
        if signalled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
            writeEnd >= 0
        {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// Waits until the signal is given or `timeout` passes (nil: forever); true when signalled.
    public func wait(timeout: Duration?) -> Bool {
        if isSignalled { return true }
        var pfd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while !isSignalled {
            let left = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            if let left, left == .zero { break }
            _ = poll(&pfd, 1, left.map { Int32(clamping: max($0.milliseconds, 1)) } ?? -1)
        }
        return isSignalled
    }
}
