import Foundation
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

@testable import ShareKit

/// Many senders at once into one receiver whose disk is slower than the network: what all the
/// transfers hold in memory on the way to the disk stays within the receiver's
/// ``WriterQueueBudget`` (not one full queue per transfer), and every transfer still completes with
/// verified copies once the disk catches up.
@Suite struct WriterQueueBudgetTests {
    @Test func manySendersIntoASlowDiskStayWithinTheBudgetAndAllComplete() async throws {
        let dir = TemporaryDirectory("writer-budget")
        let senders = 8
        let size = 6 << 20
        let budget = WriterQueueBudget(limit: 4 << 20)
        let harness = try ReceiverHarness(
            in: dir,
            configure: {
                $0.writerQueueBudget = budget
                $0.maxConnectionsPerAddress = senders
                $0.promptsPerMinute = 10 * senders
            })
        defer { harness.stop() }
        for index in 0..<senders {
            #expect(
                FileManager.default.createFile(
                    atPath: dir.at("part\(index).bin"),
                    contents: Data(SampleBytes.random(count: size, seed: UInt64(index + 1)))))
        }
        let identities = try (0..<senders).map { try Identity.loadOrCreate(in: dir.at("sender\($0)")) }
        // The disk "stalls": the writers write but do not give their bytes back until resumed.
        budget.holdReleases()
        let sending = Task {
            await withTaskGroup(of: (Int, Result<SendReport, SendError>).self) { group in
                for index in 0..<senders {
                    group.addTask {
                        do throws(SendError) {
                            var sender = TestSender(identity: identities[index])
                            sender.options.compression = .off
                            return (index, .success(try await sender.send([dir.at("part\(index).bin")], to: harness)))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                var results: [Int: Result<SendReport, SendError>] = [:]
                for await (index, result) in group { results[index] = result }
                return results
            }
        }
        // Every transfer's network thread ends up waiting for room: the budget, not each transfer's
        // own 8 MiB queue, is what stops them.
        let deadline = ContinuousClock.now + .seconds(60)
        while budget.waitingWriters < senders, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let waiting = budget.waitingWriters
        let heldWhileStalled = budget.bytesHeld
        budget.resumeReleases()
        let results = await sending.value

        #expect(waiting == senders, "only \(waiting) of \(senders) transfers waited for the budget")
        for index in 0..<senders {
            guard case .success(let report) = results[index] else {
                Issue.record("sender \(index): \(String(describing: results[index]))")
                continue
            }
            #expect(report.files.count == 1)
            #expect(hexDigest(of: dir.at("received/part\(index).bin")) == hexDigest(of: dir.at("part\(index).bin")))
        }
        // Beyond the limit, each transfer may hold one batch when it held nothing.
        let bound = budget.limit + senders * (FileWriter.batchBytes + FrameType.maxDataBytes)
        #expect(heldWhileStalled >= budget.limit / 2, "the stalled writers held \(heldWhileStalled) bytes")
        #expect(budget.highWaterMark <= bound, "the writer queues held \(budget.highWaterMark) bytes at once")
        #expect(budget.bytesHeld == 0, "every transfer gave its bytes back")
    }
}
