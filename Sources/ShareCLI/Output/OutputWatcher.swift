import Foundation
import ShareKit

#if canImport(Glibc)
import Glibc
#endif

/// Notices when whoever reads this process's stdout goes away (`share receive --json | head -1`:
/// `head` exits), so that a command that runs until stopped ends instead of running on unread.
///
/// A thread of its own waits in `poll(2)` on descriptor 1 for nothing but errors: a pipe whose reader
/// closed reports `POLLERR`, a terminal that hung up `POLLHUP`; a regular file never does.
final class OutputWatcher: Sendable {
    private let wake = Wakeup()

    /// Calls `closed` once, on the watcher's thread, when stdout's reader is gone.
    init(_ closed: @escaping @Sendable () -> Void) {
        let wake = self.wake
        Thread.detachNewThread {
            var descriptors = [
                pollfd(fd: 1, events: 0, revents: 0), pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            while !wake.isSignalled {
                let ready = poll(&descriptors, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || descriptors[1].revents != 0 { return }
                let events = descriptors[0].revents
                if events & Int16(POLLNVAL) != 0 { return }
                if events & Int16(POLLERR | POLLHUP) != 0 {
                    closed()
                    return
                }
            }
        }
    }

    /// Stops watching.
    func cancel() { wake.signal() }
}
