// ShareTLS: the OpenSSL BIO that moves TLS records over a connected socket.

internal import CShareOpenSSL
internal import Foundation
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A socket `BIO` for one TLS connection, plus the facts its callbacks observe.
///
/// Why not `SSL_set_fd`: OpenSSL's socket BIO writes with `write(2)`, which raises `SIGPIPE` (killing the
/// process) when the peer has reset the connection, and it sends every 16 KiB record with its own syscall.
/// This BIO
/// - sends with `MSG_NOSIGNAL`, so a peer going away is an error, never a signal;
/// - coalesces the records of one large ``TLSConnection/write(_:)`` into ~256 KiB `send` calls;
/// - records the errno of the failing call (timeouts are `EAGAIN` under `SO_RCVTIMEO`/`SO_SNDTIMEO`) and
///   whether the peer closed its side;
/// - can switch to non-blocking calls (`MSG_DONTWAIT`) for a close that must not wait, or to collect
///   already-arrived records after a blocking read.
///
/// The fd is not owned: the transport opens and closes it, and may `shutdown(2)` it from another thread.
///
/// Confined to its ``TLSConnection``'s thread.
final class SocketChannel {
    /// The connected socket (not owned).
    let fd: Int32

    /// The `BIO`. `SSL_set_bio` hands the one reference to the `SSL`, which frees it.
    let bio: OpaquePointer

    /// The errno of the last failed socket call, or 0.
    var lastErrno: Int32 = 0

    /// Whether `recv` reported the end of the stream.
    var sawEndOfStream = false

    /// While set, small writes are collected in ``pending`` and sent together when it fills up or on flush.
    var coalescing = false

    /// While set, socket calls do not block (`MSG_DONTWAIT`): "nothing now" shows as a retry.
    var nonBlocking = false

    /// What the peer-verification callback found wrong with the peer's certificate, if anything.
    var verificationFailure: VerificationFailure?

    /// Collected records not yet sent.
    private let pending: UnsafeMutableRawBufferPointer

    /// The number of bytes in ``pending``.
    private var pendingCount = 0

    /// Bytes of records collected before one `send`.
    static let coalescingCapacity = 256 * 1024

    /// Every byte the socket took so far (what the peer acknowledged is this minus the socket's send queue).
    private(set) var bytesSent: UInt64 = 0

    /// Asked whenever a `send` of collected records stopped short (its `SO_SNDTIMEO` passed with the socket's
    /// buffer full): `true` to keep waiting, `false` to fail the write as timed out. Without it the first
    /// such stop fails the write.
    var keepWaiting: (() -> Bool)?

    /// Makes the BIO for `fd`.
    ///
    /// - Returns: `nil` if OpenSSL cannot allocate the BIO.
    init?(fd: Int32) {
        guard let method = socketBIOMethod, let bio = openssl.BIO_new(method) else { return nil }
        self.fd = fd
        self.bio = bio
        self.pending = UnsafeMutableRawBufferPointer.allocate(
            byteCount: SocketChannel.coalescingCapacity, alignment: 16)
        // The BIO's data pointer is this object, unretained. Lifetime: the TLSConnection holds this channel
        // strongly and frees the SSL (and with it the BIO) in its deinit before the channel is released; the
        // callbacks only run inside SSL calls made by that TLSConnection.
        openssl.BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
        openssl.BIO_set_init(bio, 1)
    }

    deinit {
        pending.deallocate()
    }

    /// Prepares for an SSL call.
    func reset() {
        lastErrno = 0
    }

    /// Whether the last failure was a timeout (or, in non-blocking mode, "nothing available now").
    var lastFailureWasWouldBlock: Bool {
        lastErrno == EAGAIN || lastErrno == EWOULDBLOCK
    }

    // MARK: Called from the BIO callbacks

    /// Sends `count` bytes (coalesced or directly); returns the number accepted, or `nil` after a failure.
    fileprivate func write(_ data: UnsafeRawPointer, _ count: Int) -> Int? {
        guard coalescing else { return sendOnce(data, count) }
        if pendingCount + count > pending.count {
            guard flush() else { return nil }
        }
        if count >= pending.count {
            return sendOnce(data, count)
        }
        guard let base = pending.baseAddress else { return nil }
        (base + pendingCount).copyMemory(from: data, byteCount: count)
        pendingCount += count
        return count
    }

    /// Sends everything collected; `false` after a failure (what was not sent stays collected).
    func flush() -> Bool {
        guard let base = pending.baseAddress else { return true }
        var sent = 0
        defer {
            if sent > 0 && sent < pendingCount {
                (base).copyMemory(from: base + sent, byteCount: pendingCount - sent)
            }
            pendingCount -= sent
        }
        while sent < pendingCount {
            let wanted = pendingCount - sent
            if let n = sendOnce(base + sent, wanted) {
                // A short count is progress, not a timeout: a blocking `send` also stops short when the
                // peer resets the connection mid-call or a signal arrives, and the next call says which.
                sent += n
                continue
            } else if !lastFailureWasWouldBlock {
                return false
            }
            // The socket's buffer stayed full for the whole `SO_SNDTIMEO` and took nothing. Each call
            // restarts that timeout, so whoever waits decides how long in all, not the kernel.
            guard !nonBlocking, keepWaiting?() == true else {
                lastErrno = EAGAIN
                return false
            }
        }
        return true
    }

    /// One `send` (retried on EINTR); `nil` after a failure, with ``lastErrno`` set.
    private func sendOnce(_ data: UnsafeRawPointer, _ count: Int) -> Int? {
        let flags = Int32(MSG_NOSIGNAL) | (nonBlocking ? Int32(MSG_DONTWAIT) : 0)
        let n = retryingOnInterrupt { send(fd, data, count, flags) }
        if n >= 0 {
            bytesSent += UInt64(n)
            return n
        }
        lastErrno = errno
        return nil
    }

    /// One `recv` (retried on EINTR): the byte count, 0 at the end of the stream, `nil` after a failure.
    fileprivate func receive(_ data: UnsafeMutableRawPointer, _ count: Int) -> Int? {
        let flags = nonBlocking ? Int32(MSG_DONTWAIT) : 0
        let n = retryingOnInterrupt { recv(fd, data, count, flags) }
        if n > 0 { return n }
        if n == 0 {
            sawEndOfStream = true
            return 0
        }
        lastErrno = errno
        return nil
    }
}

/// What the verification callback found wrong with the peer's certificate.
struct VerificationFailure {
    /// The `X509_V_ERR_…` code.
    var code: Int32
    /// The position in the peer's chain (0: its own certificate).
    var depth: Int32
    /// The validity period of the offending certificate, when readable.
    var notBefore: Date?
    var notAfter: Date?
}

// MARK: - The BIO method

/// The BIO method shared by every connection, made once.
///
/// `nonisolated(unsafe)`: initialized once, lazily and thread-safely, and never modified afterwards; OpenSSL
/// only reads a `BIO_METHOD` after setup.
nonisolated(unsafe) private let socketBIOMethod: OpaquePointer? = {
    guard let method = openssl.BIO_meth_new(openssl.BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "share socket") else {
        return nil
    }
    _ = openssl.BIO_meth_set_write_ex(method, socketBIOWrite)
    _ = openssl.BIO_meth_set_read_ex(method, socketBIORead)
    _ = openssl.BIO_meth_set_ctrl(method, socketBIOControl)
    return method
}()

/// `BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY` (`BIO_FLAGS_RWS` is a macro of macros the importer skips).
private let retryFlags = BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY

/// The channel a BIO belongs to.
private func channel(of bio: OpaquePointer?) -> SocketChannel {
    guard let bio, let data = openssl.BIO_get_data(bio) else {
        preconditionFailure("share socket BIO used without its channel")
    }
    return Unmanaged<SocketChannel>.fromOpaque(data).takeUnretainedValue()
}

/// `BIO_write_ex` for the share socket BIO.
private func socketBIOWrite(
    _ bio: OpaquePointer?, _ data: UnsafePointer<CChar>?, _ count: Int, _ written: UnsafeMutablePointer<Int>?
) -> Int32 {
    let channel = channel(of: bio)
    openssl.BIO_clear_flags(bio, retryFlags)
    guard let data, count > 0 else {
        written?.pointee = 0
        return 1
    }
    guard let n = channel.write(data, count) else {
        written?.pointee = 0
        if channel.lastFailureWasWouldBlock {
            openssl.BIO_set_flags(bio, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY)
        }
        return 0
    }
    written?.pointee = n
    return 1
}

/// `BIO_read_ex` for the share socket BIO.
private func socketBIORead(
    _ bio: OpaquePointer?, _ data: UnsafeMutablePointer<CChar>?, _ count: Int, _ read: UnsafeMutablePointer<Int>?
) -> Int32 {
    let channel = channel(of: bio)
    openssl.BIO_clear_flags(bio, retryFlags)
    read?.pointee = 0
    guard let data, count > 0 else { return 0 }
    guard let n = channel.receive(data, count) else {
        if channel.lastFailureWasWouldBlock {
            openssl.BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
        }
        return 0
    }
    read?.pointee = n
    return n > 0 ? 1 : 0
}

/// `BIO_ctrl` for the share socket BIO: flush, end-of-stream; everything else is unsupported.
private func socketBIOControl(
    _ bio: OpaquePointer?, _ command: Int32, _ argument: Int, _ pointer: UnsafeMutableRawPointer?
) -> Int {
    let channel = channel(of: bio)
    switch command {
    case BIO_CTRL_FLUSH:
        openssl.BIO_clear_flags(bio, retryFlags)
        if channel.flush() { return 1 }
        if channel.lastFailureWasWouldBlock {
            openssl.BIO_set_flags(bio, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY)
        }
        return 0
    case BIO_CTRL_EOF:
        return channel.sawEndOfStream ? 1 : 0
    default:
        return 0
    }
}
