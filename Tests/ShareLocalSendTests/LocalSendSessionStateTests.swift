import ShareLocalSend
import Testing

/// One LocalSend session at a time: who may upload what, and when a silent one is released.
@Suite struct LocalSendSessionStateTests {
    @Test func oneSessionAtATimeAndUploadsOnlyFromItsAddressWithItsTokens() throws {
        var state = LocalSendSessionState()
        let start = ContinuousClock.now
        try state.open(id: "s1", address: "10.0.0.5", tokens: ["f1": "t1", "f2": "t2"], now: start)
        #expect(throws: LocalSendSessionState.Refusal.busy) {
            try state.open(id: "s2", address: "10.0.0.6", tokens: ["f": "t"], now: start + .seconds(1))
        }
        try state.authorize(sessionID: "s1", fileID: "f1", token: "t1", address: "10.0.0.5")
        #expect(throws: LocalSendSessionState.Refusal.self) {
            try state.authorize(sessionID: "s1", fileID: "f1", token: "t1", address: "10.0.0.6")
        }
        #expect(throws: LocalSendSessionState.Refusal.self) {
            try state.authorize(sessionID: "s1", fileID: "f1", token: "t2", address: "10.0.0.5")
        }
        #expect(throws: LocalSendSessionState.Refusal.self) {
            try state.authorize(sessionID: "s9", fileID: "f1", token: "t1", address: "10.0.0.5")
        }
        let first = state.finished(fileID: "f1", now: start + .seconds(2))
        #expect(!first)
        #expect(throws: LocalSendSessionState.Refusal.self, "a file is taken once") {
            try state.authorize(sessionID: "s1", fileID: "f1", token: "t1", address: "10.0.0.5")
        }
        let last = state.finished(fileID: "f2", now: start + .seconds(3))
        #expect(last, "the last file ends it")
        let byOther = state.close(sessionID: "s1", address: "10.0.0.6")
        #expect(byOther == nil, "only its own address cancels it")
        let closed = state.close(sessionID: "s1", address: "10.0.0.5")
        #expect(closed?.done == ["f1", "f2"])
        let free = state.isFree(now: start + .seconds(3))
        #expect(free)
    }

    @Test func aSilentSessionIsReleasedAfterTheStallLimitAndNotBefore() throws {
        var state = LocalSendSessionState()
        let start = ContinuousClock.now
        try state.open(id: "s1", address: "a", tokens: ["f": "t"], now: start)
        state.moved(now: start + .seconds(50))
        let freeTooEarly = state.isFree(now: start + .seconds(100))
        #expect(!freeTooEarly, "it moved 50 s in")
        let released = state.releaseIfStalled(now: start + .seconds(110))
        #expect(released?.id == "s1")
        try state.open(id: "s2", address: "b", tokens: ["f": "t"], now: start + .seconds(111))
        #expect(state.current?.id == "s2")
    }
}
