import Foundation
import ShareWire
import Testing

@testable import ShareKit

/// The receiver's rate rule alone: a read waits at most until the window ends, and a window that
/// ends with too few bytes ends the transfer with a message that says why.
@Suite struct RateWindowTests {
    @Test func aWaitEndsWithTheWindowWhenTheSilenceTimeoutIsLonger() {
        var rule = RateWindow(length: .seconds(1), minimumRate: 100)
        let start = ContinuousClock.now
        let wait = rule.wait(within: .seconds(30), bytesReceived: 0, now: start)
        #expect(wait.endsWithWindow)
        #expect(wait.timeout == .seconds(1))
        // A later read in the same window waits only for what is left of it.
        let unbounded = rule.wait(within: nil, bytesReceived: 0, now: start + .milliseconds(400))
        #expect(unbounded.endsWithWindow)
        #expect(unbounded.timeout == .milliseconds(600))
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
        let start = ContinuousClock.now
        let later = start + .milliseconds(1050)
        _ = slow.wait(within: nil, bytesReceived: 1000, now: start)
        _ = fast.wait(within: nil, bytesReceived: 1000, now: start)
        guard case .open = slow.check(bytesReceived: 1099, now: start + .milliseconds(999)) else {
            Issue.record("a window was judged before it ended")
            return
        }
        guard case .tooSlow(let error) = slow.check(bytesReceived: 1099, now: later) else {
            Issue.record("a sender below the rate passed")
            return
        }
        #expect(error.code == .timedOut)
        #expect(error.message.contains("the sender is too slow: 99 bytes in 1 s"))
        guard case .passed = fast.check(bytesReceived: 1100, now: later) else {
            Issue.record("a sender at the rate was ended")
            return
        }
        // The next window starts where the last one ended.
        guard case .open = fast.check(bytesReceived: 1100, now: later + .milliseconds(999)) else {
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
