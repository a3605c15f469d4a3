/// A connection carrying plain bytes, whatever protects it (TLS, or nothing for a browser's plain
/// HTTP): what an HTTP exchange reads and writes. Used by one thread at a time, but
/// ``interrupt()``, which may be called from any thread.
public protocol ByteStream: AnyObject {
    /// `address:port` of the peer.
    var endpoint: String { get }
    /// Reads what has arrived (at least one byte); 0 when the peer ended the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int
    /// Sends all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError)
    /// Sets the read and write timeouts for what follows (nil: none).
    func setTimeouts(receive: Duration?, send: Duration?)
    /// Waits until bytes (or the end of the stream) can be read, one of `wakes` is signalled, or
    /// `timeout` passes (nil: no limit). Safe from another thread while nobody reads.
    func waitReadable(orWake wakes: [WakeSignal], timeout: Duration?) -> TCPSocket.Readiness
    /// Wakes a read or write in progress on another thread (it then fails); ``close()`` after.
    func interrupt()
    /// Ends the connection.
    func close()
}
