import Foundation
import ShareKit

/// The waits that tests (and special setups) shorten through the environment, each in seconds
/// (README: Interrupted transfers, Trust): one place reads them for every command.
struct EnvironmentWaits {
    /// `SHARE_PROMPT_TIMEOUT`: how long a question waits for an answer (5 minutes otherwise).
    let prompt: Duration
    /// `SHARE_STALL_TIMEOUT`: how long a transfer may stand still before it counts as stalled, on
    /// both sides (nil: 30 s when sending and 60 s when receiving).
    let stall: Duration?
    /// `SHARE_PARTIAL_KEEP`: how long an interrupted transfer is kept for its sender (24 hours otherwise).
    let partialKeep: Duration
    /// `SHARE_LOCALSEND_WAIT`: how long `share peers` listens for LocalSend devices (1 s otherwise;
    /// 0 does not look for them).
    let localSendDiscovery: Duration
    /// How long `share send` listens for a LocalSend device that a `--to` names, when no share
    /// receiver has that name: `SHARE_LOCALSEND_WAIT` too, else 2 s.
    let localSendLookup: Duration
    /// `SHARE_LOCALSEND_FORGET`: how long `share peers --watch` still lists a LocalSend device it no
    /// longer hears (75 s otherwise).
    let localSendForget: Duration
    /// `SHARE_LOCALSEND_STALL`: how long `share receive --localsend` keeps an accepted LocalSend session
    /// that sends nothing (60 s otherwise).
    let localSendStall: Duration

    init(_ environment: [String: String]) {
        prompt = Self.seconds("SHARE_PROMPT_TIMEOUT", in: environment) ?? .seconds(300)
        stall = Self.seconds("SHARE_STALL_TIMEOUT", in: environment)
        partialKeep = Self.seconds("SHARE_PARTIAL_KEEP", in: environment, allowingZero: true) ?? PartialStore.defaultKeep
        localSendDiscovery = Self.seconds("SHARE_LOCALSEND_WAIT", in: environment, allowingZero: true) ?? .seconds(1)
        localSendLookup = Self.seconds("SHARE_LOCALSEND_WAIT", in: environment, allowingZero: true) ?? .seconds(2)
        localSendForget = Self.seconds("SHARE_LOCALSEND_FORGET", in: environment) ?? .seconds(75)
        localSendStall = Self.seconds("SHARE_LOCALSEND_STALL", in: environment) ?? LocalSendReceiveOptions().stallLimit
    }

    /// The kept transfers of `inbox`, kept for ``partialKeep``.
    func partialStore(inbox: String) -> PartialStore {
        PartialStore(inbox: inbox, keep: partialKeep)
    }

    /// The number of seconds in `name`, if it is one (above zero, or zero too with `allowingZero`).
    private static func seconds(_ name: String, in environment: [String: String], allowingZero: Bool = false) -> Duration? {
        guard let text = environment[name], let seconds = Double(text), seconds > 0 || (allowingZero && seconds == 0) else {
            return nil
        }
        return .milliseconds(Int(seconds * 1000))
    }
}
