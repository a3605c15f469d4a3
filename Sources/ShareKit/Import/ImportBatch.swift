import Dispatch
import ShareWire
import Synchronization

/// The imports of one committed transfer, run one after another on a thread of their own, so
/// the connection can send its receipt when they are done, or when it cannot wait any longer
/// (a slow importer must not make the sender time out), and other transfers never wait for them.
final class ImportBatch: Sendable {
    private let importer: DocumentImporter
    private let entries: [InboxEntry]
    private let cancellation: ImportCancellation
    private let state: Mutex<(results: [ImportResult?], running: [ImportApplication?])>
    private let group = DispatchGroup()
    /// Entries handed over before (by an earlier connection of a continued offer): not imported
    /// again; what became of them, and what the receipt says.
    private let delivered: [Int: Delivered]
    /// What became of an entry handed over before, and what the receipt says of it.
    typealias Delivered = (result: ImportResult, receipt: ReceiptItem)

    init(
        importer: DocumentImporter, entries: [InboxEntry], cancellation: ImportCancellation,
        delivered: [Int: Delivered] = [:]
    ) {
        self.importer = importer
        self.entries = entries
        self.cancellation = cancellation
        self.delivered = delivered
        state = Mutex((Array(repeating: nil, count: entries.count), Array(repeating: nil, count: entries.count)))
    }

    /// Starts importing.
    func start() {
        group.enter()
        BlockingWork.start("share.import") { [self] in
            defer { group.leave() }
            for (index, entry) in entries.enumerated() {
                let result: ImportResult
                if let done = delivered[index] {
                    state.withLock { $0.results[index] = done.result }
                    continue
                }
                if cancellation.isCancelled {
                    // Left pending: 'share inbox import' takes it from here.
                    result = ImportResult(
                        entry: entry, type: entry.declaredType ?? "", application: nil, receiveFolderReason: nil,
                        outcome: .kept(failure: "the receiver stopped before importing it", timedOut: false),
                        warnings: [])
                    state.withLock { $0.results[index] = result }
                    continue
                }
                do {
                    result = try importer.importEntry(entry.id, cancellation: cancellation) { plan in
                        self.state.withLock { $0.running[index] = plan.application }
                    }
                } catch {
                    result = ImportResult(
                        entry: entry, type: entry.declaredType ?? "", application: nil, receiveFolderReason: nil,
                        outcome: .kept(failure: "\(error)", timedOut: false), warnings: [])
                }
                state.withLock { $0.results[index] = result }
            }
        }
    }

    /// Waits until every import finished or `timeout` passed; returns whether they all finished.
    func wait(timeout: Duration) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return group.wait(timeout: .now() + seconds) == .success
    }

    /// Waits for every import and returns the results, in entry order.
    func waitForAll() -> [ImportResult] {
        group.wait()
        return state.withLock { state in
            state.results.enumerated().map { index, result in
                result
                    ?? ImportResult(
                        entry: entries[index], type: "", application: nil, receiveFolderReason: nil,
                        outcome: .kept(failure: "the import did not run", timedOut: false), warnings: [])
            }
        }
    }

    /// The receipt's items as of now: what became of finished imports, and those still running.
    func receiptItems(home: String?) -> [ReceiptItem] {
        state.withLock { state in
            state.results.enumerated().map { index, result in
                delivered[index]?.receipt ?? result?.receiptItem(home: home)
                    ?? ImportResult.pendingReceiptItem(application: state.running[index])
            }
        }
    }
}
