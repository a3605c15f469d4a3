import Foundation
import ShareDocuments
import ShareKit
import ShareNotifications
import Synchronization

/// The desktop notifications a receiver without a terminal (a service, or one that asks with
/// notifications) shows when a connection ends: a completed transfer (with an "Open" button for
/// the folder it landed in), and a failure that says why.
enum TransferNotice {
    /// Shows the notification for `outcome`, if it has one, on the server `connection` reaches (if
    /// there is one); "Open" opens the folder with xdg-open. A failure to show it is a warning.
    static func show(_ outcome: IncomingOutcome, home: String, on connection: NotifierConnection, console: Console) {
        guard let (notification, folder) = make(outcome, home: home) else { return }
        guard let current = connection.current() else { return }
        let shown = Mutex<UInt32?>(nil)
        do {
            let id = try current.notify(
                notification,
                onAction: { key in
                    guard key == "open", let folder else { return }
                    FolderOpener.open(folder)
                    // A button is used once: the notification goes (some servers keep it otherwise).
                    if let id = shown.withLock({ $0 }) { try? current.close(id) }
                })
            shown.withLock { $0 = id }
        } catch {
            connection.failed(current, error)
            console.warning("the desktop notification was not shown: \(error)")
        }
    }

    /// What a failed transfer left: the part kept for the sender to continue, or nothing.
    static func keptText(_ keptBytes: UInt64) -> String {
        keptBytes > 0
            ? "\(ByteCount.format(keptBytes)) that arrived is kept for the sender to continue"
            : "nothing was kept"
    }

    /// The notification for `outcome`, and the folder its "Open" button opens; nil when the
    /// outcome is not worth a notification (declines, refusals, pairings: the log has them).
    static func make(_ outcome: IncomingOutcome, home: String) -> (notification: DesktopNotification, folder: String?)?
    {
        switch outcome {
        case .received(let transfer):
            let who =
                transfer.localSend == nil
                ? "\"\(DisplayText.escape(transfer.peerName))\"" : "LocalSend device \"\(DisplayText.escape(transfer.peerName))\" (not verified)"
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
                body: (lines + more + ["\(ByteCount.format(transfer.bytes))" + (transfer.checkedAgainstSender ? ", SHA-256 verified" : "")]).joined(
                    separator: "\n"),
                actions: folder == nil ? [] : [DesktopNotification.Action(key: "open", label: "Open")])
            notification.category = "transfer.complete"
            notification.icon = "folder-download"
            return (notification, folder)
        case .failed(let name, _, let address, let failure, let keptBytes):
            let who = name.map { "\"\(DisplayText.escape($0))\"" } ?? address
            var notification = DesktopNotification(
                summary: "Receiving from \(who) failed",
                body: "\(DisplayText.escape("\(failure)")); \(keptText(keptBytes)).")
            notification.category = "transfer.error"
            notification.icon = "dialog-error"
            return (notification, nil)
        case .declined, .refusedSender, .refused, .paired:
            return nil
        }
    }
}
