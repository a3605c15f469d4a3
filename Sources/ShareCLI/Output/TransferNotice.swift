import Foundation
import ShareDocuments
import ShareKit
import ShareNotifications
import ShareWire

/// The desktop notifications a receiving service shows when a connection ends: a completed
/// transfer (with an "Open" button for the folder it landed in), and a failure that says why.
enum TransferNotice {
    /// The notification for `outcome`, and the folder its "Open" button opens; nil when the
    /// outcome is not worth a notification (declines, refusals, pairings: the log has them).
    static func make(_ outcome: IncomingOutcome, home: String) -> (notification: DesktopNotification, folder: String?)?
    {
        switch outcome {
        case .received(let transfer):
            let who = "\"\(DisplayText.escape(transfer.peerName))\""
            let count =
                transfer.items.count == 1 ? DisplayText.escape(transfer.items[0].name) : "\(transfer.items.count) items"
            let lines = transfer.items.prefix(5).map { item in
                let name = DisplayText.escape(item.name) + (item.isBundle ? "/" : "")
                switch item.result.outcome {
                case .receiveFolder(let path):
                    return "\(name) → \(DisplayText.escape(DisplayPath.abbreviate(path, home: home)))"
                case .imported:
                    return
                        "\(name) → imported by \(DisplayText.escape(item.result.application?.name ?? "an application"))"
                case .kept(let failure, _): return "\(name) → kept in the inbox: \(DisplayText.escape(failure))"
                }
            }
            let more = transfer.items.count > 5 ? ["and \(transfer.items.count - 5) more"] : []
            let folder = transfer.items.lazy.compactMap(\.path).first.map { ($0 as NSString).deletingLastPathComponent }
            var notification = DesktopNotification(
                summary: "Received \(count) from \(who)",
                body: (lines + more + ["\(ByteCount.format(transfer.bytes)), SHA-256 verified"]).joined(
                    separator: "\n"),
                actions: folder == nil ? [] : [DesktopNotification.Action(key: "open", label: "Open")])
            notification.category = "transfer.complete"
            notification.icon = "folder-download"
            return (notification, folder)
        case .failed(let name, _, let address, let failure):
            let who = name.map { "\"\(DisplayText.escape($0))\"" } ?? address
            var notification = DesktopNotification(
                summary: "Receiving from \(who) failed",
                body: "\(DisplayText.escape(failure.description)); nothing was kept.")
            notification.category = "transfer.error"
            notification.icon = "dialog-error"
            return (notification, nil)
        case .declined, .refusedSender, .refused, .paired:
            return nil
        }
    }
}
