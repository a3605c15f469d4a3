import ShareLocalSend
import Testing

/// A receiver's PIN, and the lockout of an address that guesses.
@Suite struct LocalSendPinGateTests {
    @Test func threeWrongPinsLockAnAddressOutForAWhileAndOnlyThatAddress() {
        var gate = LocalSendPinGate(pin: "1234")
        let start = ContinuousClock.now
        let verdict1 = gate.check(nil, from: "10.0.0.5", now: start)
        #expect(verdict1 == .wrong)
        let verdict2 = gate.check("0000", from: "10.0.0.5", now: start + .seconds(1))
        #expect(verdict2 == .wrong)
        let locked = gate.check("1111", from: "10.0.0.5", now: start + .seconds(2))
        #expect(locked == .locked(until: start + .seconds(62)))
        let verdict3 = gate.check("1234", from: "10.0.0.5", now: start + .seconds(30))
        #expect(verdict3 == locked, "even the right PIN waits")
        let verdict4 = gate.check("1234", from: "10.0.0.6", now: start + .seconds(30))
        #expect(verdict4 == .open, "another address is not locked")
        let verdict5 = gate.check("1234", from: "10.0.0.5", now: start + .seconds(62))
        #expect(verdict5 == .open)
    }

    @Test func wrongPinsFarApartDoNotLock() {
        var gate = LocalSendPinGate(pin: "1234")
        let start = ContinuousClock.now
        for minute in 0..<5 {
            let verdict6 = gate.check("9", from: "a", now: start + .seconds(61 * minute))
            #expect(verdict6 == .wrong)
        }
    }

    @Test func withoutAPinEveryRequestIsOpen() {
        var gate = LocalSendPinGate(pin: nil)
        let verdict7 = gate.check(nil, from: "a", now: .now)
        #expect(verdict7 == .open)
        var empty = LocalSendPinGate(pin: "")
        let verdict8 = empty.check(nil, from: "a", now: .now)
        #expect(verdict8 == .open)
    }
}
