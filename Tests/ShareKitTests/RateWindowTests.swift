import Foundation
import ShareWire
import Testing

@testable import ShareKit

/// The receiver's rate rule alone: a read waits at most until the window ends, and a window that
/// ends with too few bytes ends the transfer with a message that says why.
@Suite struct RateWindowTests {
    @Test func aWaitEndsWithTheWindowWhenTheSilenceTimeoutIsLonger() {
        var rule = RateWindow(length: .seconds(1), minimumRate: 100)
        let wait = rule.wait(within: .seconds(30), bytesReceived: 0)
        #expect(wait.endsWithWindow)
        #expect(wait.timeout.map { $0 <= .seconds(1) } == true)
        let unbounded = rule.wait(within: nil, bytesReceived: 0)
        #expect(unbounded.endsWithWindow)
    }

    @Test func aShorterSilenceTimeoutEndsTheWaitFirst() {
        var rule = RateWindow(length: .seconds(1), minimumRate: 100)
        let wait = rule.wait(within: .milliseconds(10), bytesReceived: 0)
        #expect(!wait.endsWithWindow)
        #expect(wait.timeout == .milliseconds(10))
    }

    @Test func aWindowStillOpenIsNotChecked() {
        var rule = RateWindow(length: .seconds(1), minimumRate: 100)
        _ = rule.wait(within: nil, bytesReceived: 0)
        guard case .open = rule.check(bytesReceived: 0) else {
            Issue.record("an open window was judged")
            return
        }
    }

    @Test func aWindowThatEndedJudgesTheBytesItSaw() throws {
        var slow = RateWindow(length: .seconds(1), minimumRate: 100)
        var fast = RateWindow(length: .seconds(1), minimumRate: 100)
        _ = slow.wait(within: nil, bytesReceived: 1000)
        _ = fast.wait(within: nil, bytesReceived: 1000)
        Thread.sleep(forTimeInterval: 1.05)
        guard case .tooSlow(let error) = slow.check(bytesReceived: 1099) else {
            Issue.record("a sender below the rate passed")
            return
        }
        #expect(error.code == .timedOut)
        #expect(error.message.contains("the sender is too slow: 99 bytes in 1 s"))
        guard case .passed = fast.check(bytesReceived: 1100) else {
            Issue.record("a sender at the rate was ended")
            return
        }
        // The next window starts where the last one ended.
        guard case .open = fast.check(bytesReceived: 1100) else {
            Issue.record("the next window did not start")
            return
        }
    }

    @Test func aResetStartsANewWindowAtTheNextWait() {
        var rule = RateWindow(length: .seconds(1), minimumRate: 100)
        _ = rule.wait(within: nil, bytesReceived: 0)
        rule.reset()
        guard case .open = rule.check(bytesReceived: 0) else {
            Issue.record("a reset window was judged")
            return
        }
    }
}
