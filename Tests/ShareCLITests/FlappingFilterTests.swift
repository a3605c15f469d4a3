@testable import ShareCLI
import Testing

@Suite struct FlappingFilterTests {
    let start = ContinuousClock.now

    @Test func aChangePrintsOnceItSettles() {
        var filter = FlappingFilter()
        filter.record("desk", state: "+ desk", at: start)
        #expect(filter.due(at: start + .milliseconds(100)).isEmpty)
        #expect(filter.due(at: start + .milliseconds(600)).map(\.output) == [.state("+ desk")])
        // The same state again prints nothing; gone prints once.
        filter.record("desk", state: "+ desk", at: start + .seconds(1))
        #expect(filter.due(at: start + .seconds(2)).isEmpty)
        filter.record("desk", state: nil, at: start + .seconds(3))
        #expect(filter.due(at: start + .seconds(4)).map(\.output) == [.state(nil)])
    }

    @Test func aPeerThatCameAndWentBeforeItSettledIsNotPrinted() {
        var filter = FlappingFilter()
        filter.record("blip", state: "+ blip", at: start)
        filter.record("blip", state: nil, at: start + .milliseconds(100))
        #expect(filter.due(at: start + .seconds(1)).isEmpty)
    }

    @Test func twentyFlappingPeersPrintAFewLinesNotHundreds() {
        var filter = FlappingFilter()
        var lines = 0
        var now = start
        // 20 services flapping every 50 ms for 10 seconds.
        for step in 0..<200 {
            for peer in 0..<20 { filter.record("peer\(peer)", state: step % 2 == 0 ? "+ peer\(peer)" : nil, at: now) }
            lines += filter.due(at: now).count
            now += .milliseconds(50)
        }
        #expect(lines <= 40, "\(lines) lines in 10 s (at most one flapping note per peer, and the first states)")
        #expect(lines > 0, "flapping is reported, not hidden")
    }
}
