import Dispatch
public import ShareDNS
import ShareDNSUpdate
import ShareDiscovery
public import ShareTLS
import Synchronization

/// Publishes a receiver in a wide-area DNS domain with signed dynamic updates (RFC 2136 + TSIG)
/// and keeps it there until ``stop()`` withdraws it.
///
/// - One UPDATE adds the PTR, SRV and TXT records (the same TXT as on the local network,
///   ``Advertisement``) and the host's A and AAAA records, on the condition that nobody uses the
///   instance name. If somebody does: when its TXT carries this machine's fingerprint it is this
///   machine's own entry, left by a run that crashed, and is replaced (`reclaimed`); otherwise the
///   next name is tried ("desk #2"), as on the local network.
/// - The addresses are compared with the machine's own every ``WideAreaPublication/addressCheckInterval``
///   and updated when they changed; the entry is checked to still be in DNS every
///   ``WideAreaPublication/presenceCheckInterval`` and published again when it is not.
/// - A server that does not answer is retried (1 s, doubling to 60 s); a server that refuses the
///   key or the update is reported once, and the publisher gives up.
///
/// All DNS traffic happens on one thread of its own; events come through an `AsyncStream`.
public final class WideAreaPublisher: Sendable {
    /// What happens to the entry, in order. Finishes after ``stop()``.
    public let events: AsyncStream<WideAreaEvent>
    private let control = PublisherControl()

    /// Starts publishing `name` for the receiver with `fingerprint` listening on `port`.
    /// - Parameter addresses: this machine's addresses (tests may give others).
    public init(
        _ publication: WideAreaPublication, name: String, port: UInt16, fingerprint: Fingerprint,
        addresses: @escaping @Sendable () -> [[UInt8]] = { LocalAddresses.routable().map(\.bytes) }
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: WideAreaEvent.self)
        events = stream
        let control = self.control
        BlockingWork.start("share.wide-area") {
            var run = PublisherRun(
                publication: publication, requestedName: name, port: port, fingerprint: fingerprint, addresses: addresses,
                continuation: continuation)
            run.loop(control)
            continuation.finish()
            control.done.signal()
        }
    }

    /// Withdraws the entry (waiting at most `timeout` for the server) and finishes ``events``.
    public func stop(timeout: Duration = .seconds(10)) async {
        guard control.stopping.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        control.wake.signal()
        let control = self.control
        await BlockingWork.run("share.wide-area-stop") {
            _ = control.done.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000)))
        }
    }
}

/// How ``WideAreaPublisher/stop(timeout:)`` reaches the publisher's thread.
private final class PublisherControl: Sendable {
    /// Set once to ask the thread to withdraw and end.
    let stopping = Atomic<Bool>(false)
    /// Wakes the thread from its wait between checks.
    let wake = DispatchSemaphore(value: 0)
    /// Signalled when the thread has ended.
    let done = DispatchSemaphore(value: 0)
}

/// The publisher's state, owned by its thread.
private struct PublisherRun {
    let publication: WideAreaPublication
    let requestedName: String
    let port: UInt16
    let fingerprint: Fingerprint
    let addresses: @Sendable () -> [[UInt8]]
    let continuation: AsyncStream<WideAreaEvent>.Continuation

    /// Where updates go, once found.
    var server: DNSServer?
    var zone: DNSName?
    /// The name in DNS and the addresses it has, once published.
    var published: (name: String, addresses: [[UInt8]])?
    var retryDelay: Duration = .seconds(1)
    /// Whether an `unavailable` was reported since the last success.
    var reportedUnavailable = false

    var domainText: String { publication.domain.presentation }

    init(
        publication: WideAreaPublication, requestedName: String, port: UInt16, fingerprint: Fingerprint,
        addresses: @escaping @Sendable () -> [[UInt8]], continuation: AsyncStream<WideAreaEvent>.Continuation
    ) {
        self.publication = publication
        self.requestedName = requestedName
        self.port = port
        self.fingerprint = fingerprint
        self.addresses = addresses
        self.continuation = continuation
    }

    /// A reason to stop or pause publishing.
    struct Failure: Error {
        var reason: String
        var temporary: Bool
    }

    mutating func loop(_ control: PublisherControl) {
        let clock = ContinuousClock()
        var nextPresenceCheck = clock.now + publication.presenceCheckInterval
        while !control.stopping.load(ordering: .acquiring) {
            var wait = publication.addressCheckInterval
            do throws(Failure) {
                if published == nil {
                    try publish()
                    nextPresenceCheck = clock.now + publication.presenceCheckInterval
                } else {
                    try checkAddresses()
                    if clock.now >= nextPresenceCheck {
                        try checkPresence()
                        nextPresenceCheck = clock.now + publication.presenceCheckInterval
                    }
                }
                retryDelay = .seconds(1)
            } catch {
                if !reportedUnavailable || !error.temporary {
                    continuation.yield(.unavailable(domain: domainText, reason: error.reason, retrying: error.temporary))
                    reportedUnavailable = true
                }
                guard error.temporary else { break }
                wait = retryDelay
                retryDelay = min(retryDelay * 2, .seconds(60))
            }
            _ = control.wake.wait(timeout: .now() + .milliseconds(milliseconds(wait)))
        }
        if control.stopping.load(ordering: .acquiring) { withdraw() }
    }

    func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: - Names and records

    func names(_ name: String) throws(Failure) -> (service: DNSName, instance: DNSName, host: DNSName) {
        do {
            let domain = publication.domain
            return (
                try WideAreaNames.service(in: domain), try WideAreaNames.instance(name, in: domain),
                try WideAreaNames.host(for: fingerprint, in: domain)
            )
        } catch {
            throw Failure(reason: "the name '\(name)' cannot be published in \(domainText): \(error)", temporary: false)
        }
    }

    func textRecord(_ instance: DNSName) throws(Failure) -> DNSRecord {
        do {
            return .text(instance, try TXTRecord.encode(Advertisement.txt(for: fingerprint)), ttl: publication.ttl)
        } catch {
            throw Failure(reason: error.description, temporary: false)
        }
    }

    /// The changes that put the entry and the host's addresses in place.
    func entryChanges(_ name: String, addresses: [[UInt8]]) throws(Failure) -> [DNSUpdate.Change] {
        let (service, instance, host) = try names(name)
        let ttl = publication.ttl
        return hostChanges(host, addresses: addresses) + [
            .add(.pointer(service, to: instance, ttl: ttl)),
            .add(.service(instance, port: port, target: host, ttl: ttl)),
            .add(try textRecord(instance)),
        ]
    }

    func hostChanges(_ host: DNSName, addresses: [[UInt8]]) -> [DNSUpdate.Change] {
        [.deleteRecordSet(host, .a), .deleteRecordSet(host, .aaaa)]
            + addresses.map { .add(.address(host, $0, ttl: publication.ttl)) }
    }

    // MARK: - Talking to the server

    mutating func connection() throws(Failure) -> (DNSServer, DNSName) {
        if let server, let zone { return (server, zone) }
        do {
            let (server, zone) = try ZoneLocator.locate(
                domain: publication.domain, server: publication.server, key: publication.key)
            self.server = server
            self.zone = zone
            return (server, zone)
        } catch {
            throw Failure(reason: error.reason, temporary: error.temporary)
        }
    }

    mutating func send(_ prerequisites: [DNSUpdate.Prerequisite], _ changes: [DNSUpdate.Change]) throws(Failure) -> DNSResponseCode {
        let (server, zone) = try connection()
        do {
            return try server.send(DNSUpdate(zone: zone, prerequisites: prerequisites, changes: changes))
        } catch {
            if case .unreachable = error {
                throw Failure(reason: error.description, temporary: true)
            }
            throw Failure(reason: error.description, temporary: false)
        }
    }

    /// The failure for a response code other than those the caller handles.
    func refusal(_ code: DNSResponseCode) -> Failure {
        let server = server?.label ?? "the DNS server"
        let key = publication.key.name.presentation
        switch code {
        case .refused:
            return Failure(
                reason: "the DNS server \(server) refused the update (REFUSED): the key '\(key)' may not change share's "
                    + "names in \(zone?.presentation ?? domainText). Ask its administrator to allow them (update-policy, "
                    + "see docs/WIDE-AREA.md)", temporary: false)
        case .notAuthorized:
            return Failure(
                reason: "the DNS server \(server) is not the primary server of \(zone?.presentation ?? domainText), or "
                    + "did not accept the key '\(key)' (NOTAUTH); give the primary with --dns-server", temporary: false)
        case .notZone:
            return Failure(reason: "\(domainText) is not inside the zone \(zone?.presentation ?? "?") (NOTZONE)", temporary: false)
        case .serverFailure:
            return Failure(reason: "the DNS server \(server) failed the update (SERVFAIL)", temporary: true)
        default:
            return Failure(reason: "the DNS server \(server) did not apply the update (\(code))", temporary: false)
        }
    }

    /// The TXT records under `instance` on the server, or nil when there are none.
    mutating func currentText(_ instance: DNSName) throws(Failure) -> [DNSRecord] {
        let (server, _) = try connection()
        do {
            return try server.query(instance, .txt).answers(.txt, for: instance)
        } catch {
            throw Failure(reason: error.description, temporary: true)
        }
    }

    // MARK: - Steps

    mutating func publish() throws(Failure) {
        var name = requestedName
        let current = addresses()
        for _ in 0..<20 {
            let (_, instance, _) = try names(name)
            let changes = try entryChanges(name, addresses: current)
            var code = try send([.nameNotInUse(instance)], changes)
            var reclaimed = false
            if code == .nameExists {
                let existing = try currentText(instance)
                let theirs = existing.compactMap { record -> String? in
                    guard case .text(let strings) = record.data else { return nil }
                    return Advertisement.fingerprintPrefix(in: TXTRecord.decode(strings))
                }
                if !theirs.isEmpty, theirs.allSatisfy({ fingerprint.matches(prefix: $0) }) {
                    // This machine's own entry from an earlier run: replace it, if it is still there.
                    code = try send([.recordSetEquals(existing)], [.deleteName(instance)] + changes)
                    reclaimed = true
                    if code == .recordSetMissing || code == .recordSetExists { continue }
                } else {
                    let next = WideAreaNames.alternative(to: name)
                    continuation.yield(.renamed(from: name, to: next, domain: domainText))
                    name = next
                    continue
                }
            }
            guard code == .noError else { throw refusal(code) }
            published = (name, current)
            reportedUnavailable = false
            let host = (try? WideAreaNames.host(for: fingerprint, in: publication.domain).presentation) ?? ""
            continuation.yield(
                .published(
                    name: name, domain: domainText, host: host, addresses: current.map(IPAddressText.format),
                    reclaimed: reclaimed))
            return
        }
        throw Failure(reason: "no free name was found in \(domainText) after 20 tries", temporary: false)
    }

    mutating func checkAddresses() throws(Failure) {
        guard let published else { return }
        let current = addresses()
        guard current != published.addresses else { return }
        let (_, instance, host) = try names(published.name)
        let code = try send([.recordSetEquals([try textRecord(instance)])], hostChanges(host, addresses: current))
        if code == .recordSetMissing || code == .recordSetExists {
            self.published = nil  // the entry is gone or no longer ours: publish it again
            return
        }
        guard code == .noError else { throw refusal(code) }
        self.published = (published.name, current)
        continuation.yield(
            .addressesChanged(name: published.name, domain: domainText, addresses: current.map(IPAddressText.format)))
    }

    mutating func checkPresence() throws(Failure) {
        guard let published else { return }
        let (service, instance, _) = try names(published.name)
        let expected = try textRecord(instance).data
        let (server, _) = try connection()
        do throws(DNSServerError) {
            let pointers = try server.query(service, .ptr).answers(.ptr, for: service)
            let text = try server.query(instance, .txt).answers(.txt, for: instance)
            if !pointers.contains(where: { $0.data == .pointer(instance) }) || text.map(\.data) != [expected] {
                self.published = nil
            }
        } catch {
            throw Failure(reason: error.description, temporary: true)
        }
    }

    mutating func withdraw() {
        guard let published else { return }
        do throws(Failure) {
            let (service, instance, host) = try names(published.name)
            let code = try send(
                [.recordSetEquals([try textRecord(instance)])],
                [.delete(.pointer(service, to: instance, ttl: 0)), .deleteName(instance)] + hostChanges(host, addresses: []))
            guard code == .noError || code == .recordSetMissing || code == .recordSetExists else { throw refusal(code) }
            continuation.yield(.withdrawn(name: published.name, domain: domainText))
        } catch {
            continuation.yield(.withdrawFailed(name: published.name, domain: domainText, reason: error.reason))
        }
    }
}
