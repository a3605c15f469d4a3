import Foundation
import ShareDocuments

/// What the commit stage of every receiver (share's own transfers and LocalSend's) takes from the
/// configuration: the inbox records of an offer's items, and the importer that hands them on.
extension ReceiverConfiguration {
    /// The inbox records of `manifest`'s items, received now from `senderName` (its key written as
    /// `senderFingerprint`).
    func inboxEntries(for manifest: Manifest, senderName: String, senderFingerprint: String) -> [InboxEntry] {
        let now = Date()
        return manifest.items.map { item in
            InboxEntry(
                name: item.name, isBundle: item.isBundle, files: item.fileCount, bytes: item.byteCount,
                senderName: senderName, senderFingerprint: senderFingerprint, receivedAt: now,
                declaredType: item.declaredType.isEmpty ? nil : item.declaredType, receiveFolder: destination)
        }
    }

    /// The importer that hands committed entries of `inbox` to the applications registered for their
    /// types, or places them in the receive folder (opened when the receiver started).
    func documentImporter(inbox: Inbox) -> DocumentImporter {
        var importer = DocumentImporter(
            inbox: inbox, registry: registry.current(), receiveFolder: destination, environment: importEnvironment)
        importer.openedReceiveFolder = receiveFolder
        return importer
    }
}
