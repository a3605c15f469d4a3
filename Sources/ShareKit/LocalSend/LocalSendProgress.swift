/// Where a send to a LocalSend device stands, for a progress line.
public enum LocalSendProgress: Sendable {
    /// The files are offered; the device's user is deciding.
    case waiting
    /// Files are uploading.
    case sending(TransferProgress)
}
