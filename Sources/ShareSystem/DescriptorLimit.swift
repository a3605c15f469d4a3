internal import CShareLinux
import Synchronization

/// The process's limit on open descriptors (`RLIMIT_NOFILE`), which a receiver raises once.
///
/// Debian starts programs with a soft limit of 1,024 descriptors and a far higher hard limit. A
/// receiver holds a socket and files per transfer, and a commit on a busy disk keeps up to
/// `SyncQueue.maxOpen` (ShareKit) descriptors waiting plus a batch per sync thread: a few such commits at
/// once would reach 1,024, and every other `open` and `accept` of the process would then fail. So the
/// receiver raises its soft limit to the hard one (at most ``ceiling``), as systemd advises for
/// programs that need many descriptors, and the programs it starts (importers) get back the soft
/// limit it was started with: programs that use `select` count on descriptors below 1,024.
package enum DescriptorLimit {
    /// The most the soft limit is raised to: sixteen busy-disk commits at once need about 8,000.
    package static let ceiling: UInt64 = 65536

    /// The soft limit the process was started with, once ``raise()`` raised it; 0 before.
    private static let started = Mutex<UInt64>(0)

    /// Raises the soft limit to the hard one (at most ``ceiling``), once per process; nothing
    /// happens when it is already that high or the system refuses.
    package static func raise() {
        started.withLock { started in
            guard started == 0 else { return }
            started = CShareLinux_raise_descriptor_limit(ceiling)
        }
    }

    /// The soft limit a child process gets (the one this process was started with), or 0 to leave
    /// it as this process has it (``raise()`` did not raise it).
    package static var forChildren: UInt64 { started.withLock { $0 } }
}
