internal import CShareAvahi
internal import Synchronization

/// The machinery behind ``ServiceBrowser``: one Avahi client, one service browser on every
/// interface and protocol, and one resolver per instance (interface × protocol × name).
///
/// ## Threading
/// `@unchecked Sendable`: the stored `let`s are immutable or thread-safe, and every `var` is
/// touched only with the poll's lock held (inside an Avahi callback, or `poll.withLock`).
///
/// ## Lifetime
/// `init` retains `self` once for the C callbacks' `userdata`; ``close()`` (idempotent)
/// stops the poll thread and balances it. `deinit` asserts that `close()` ran.
final class BrowserCore: @unchecked Sendable {
    private enum AllForNowProgress {
        /// The daemon has not said ALL_FOR_NOW yet.
        case waitingForBrowser
        /// It has; resolutions started before are still running.
        case waitingForResolutions
        /// `.allForNow` was sent.
        case sent
    }

    private let poll: ThreadedPoll
    private let type: String
    private let resolveTimeout: Duration
    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let closed = Atomic<Bool>(false)

    // Guarded by the poll lock.
    private var client: AvahiClientHandle?
    private var browser: ServiceBrowserHandle?
    private var resolvers: [ServiceAggregator.InstanceKey: ServiceResolverHandle] = [:]
    private var resolverKeys: [OpaquePointer: ServiceAggregator.InstanceKey] = [:]
    private var aggregator: ServiceAggregator
    private var allForNow = AllForNowProgress.waitingForBrowser
    /// Bounds the wait for resolutions after the daemon's ALL_FOR_NOW.
    private var resolveTimer: PollTimeout?
    /// Bounds the wait for `.allForNow` from the start (snapshots).
    private var deadlineTimer: PollTimeout?
    /// Set when the stream was finished by a failure.
    private var finished = false

    /// Connects and starts browsing.
    ///
    /// - Parameters:
    ///   - resolveTimeout: how long to wait, after the daemon's ALL_FOR_NOW, for
    ///     resolutions still running before sending `.allForNow` anyway.
    ///   - allForNowDeadline: if set, `.allForNow` is sent at the latest this long after start.
    /// - Throws: ``DiscoveryError/systemBusUnavailable(address:code:)`` or
    ///   ``DiscoveryError/daemonNotRunning`` when there is nobody to ask.
    init(
        type: String, resolveTimeout: Duration, allForNowDeadline: Duration?,
        continuation: AsyncStream<BrowserEvent>.Continuation
    ) throws(DiscoveryError) {
        self.poll = try ThreadedPoll()
        self.type = type
        self.resolveTimeout = resolveTimeout
        self.continuation = continuation
        self.aggregator = ServiceAggregator(type: type)
        _ = Unmanaged.passRetained(self)
        do {
            try poll.withLock { () throws(DiscoveryError) in try connect(allForNowDeadline: allForNowDeadline) }
            try poll.start()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        assert(closed.load(ordering: .acquiring), "BrowserCore released without close()")
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Stops browsing, frees every Avahi object, stops the poll thread and finishes the stream.
    /// Idempotent. Must not be called from an Avahi callback.
    func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        poll.withLock {
            resolveTimer = nil
            deadlineTimer = nil
            resolverKeys.removeAll()
            resolvers.removeAll()
            browser = nil
            client = nil
        }
        poll.stop()
        continuation.finish()
        Unmanaged.passUnretained(self).release()
    }

    // MARK: - Called with the poll lock held

    private func connect(allForNowDeadline: Duration?) throws(DiscoveryError) {
        switch AvahiClientHandle.connect(poll: poll, callback: browserClientCallback, userdata: userdata) {
        case .failed(let code):
            throw .systemBusUnavailable(address: PublisherCore.systemBusAddress, code: code)
        case .connected(let handle):
            client = handle
            switch handle.state {
            case AVAHI_CLIENT_CONNECTING: throw .daemonNotRunning
            case AVAHI_CLIENT_FAILURE: throw .daemonLost
            default: break
            }
            browser = try ServiceBrowserHandle(
                client: handle, type: type, callback: browserCallback, userdata: userdata)
            if let allForNowDeadline {
                deadlineTimer = PollTimeout(
                    poll: poll, delay: allForNowDeadline, callback: browserAllForNowCallback, userdata: userdata)
            }
        }
    }

    fileprivate func clientStateChanged(_ state: AvahiClientState) {
        if state == AVAHI_CLIENT_FAILURE {
            finish(.daemonLost)
        }
    }

    fileprivate func browserEvent(
        _ browser: OpaquePointer, interface: AvahiIfIndex, protocol: AvahiProtocol, event: AvahiBrowserEvent,
        name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
        flags: AvahiLookupResultFlags
    ) {
        guard !finished else { return }
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain, let key = Self.key(interface, `protocol`, name) else { return }
            guard resolvers[key] == nil, aggregator.instanceAdded(key, isLocal: Self.isLocal(flags)) else { return }
            if let client = avahi.avahi_service_browser_get_client(browser),
                let resolver = ServiceResolverHandle(
                    client: client, interface: interface, protocol: `protocol`, name: name, type: type, domain: domain,
                    callback: browserResolverCallback, userdata: userdata)
            {
                resolvers[key] = resolver
                resolverKeys[resolver.pointer] = key
            } else {
                emit(aggregator.instanceFailed(key))
            }
        case AVAHI_BROWSER_REMOVE:
            guard let name, let key = Self.key(interface, `protocol`, name) else { return }
            if let resolver = resolvers.removeValue(forKey: key) {
                resolverKeys[resolver.pointer] = nil
            }
            emit(aggregator.instanceRemoved(key))
        case AVAHI_BROWSER_ALL_FOR_NOW:
            guard allForNow == .waitingForBrowser else { return }
            allForNow = .waitingForResolutions
            resolveTimer = PollTimeout(
                poll: poll, delay: resolveTimeout, callback: browserAllForNowCallback, userdata: userdata)
        case AVAHI_BROWSER_FAILURE:
            let code =
                avahi.avahi_service_browser_get_client(browser).map { avahi.avahi_client_errno($0) }
                ?? AvahiErrorCode.failure.rawValue
            finish(.avahi(operation: "browse for \(self.type) services", code: AvahiErrorCode(rawValue: code)))
            return
        default:
            break  // CACHE_EXHAUSTED: nothing to do.
        }
        checkAllForNow()
    }

    fileprivate func resolverEvent(
        _ resolver: OpaquePointer, interface: AvahiIfIndex, event: AvahiResolverEvent,
        host: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?, port: UInt16,
        txt: UnsafeMutablePointer<AvahiStringList>?, flags: AvahiLookupResultFlags
    ) {
        guard !finished, let key = resolverKeys[resolver] else { return }
        switch event {
        case AVAHI_RESOLVER_FOUND:
            let resolution = ServiceAggregator.Resolution(
                host: host.map { String(cString: $0) } ?? "",
                port: port,
                address: address.flatMap { ServiceAddress(avahi: $0, interfaceIndex: interface) },
                txt: TXTRecord.decode(AvahiTXTList.entries(of: txt)))
            emit(aggregator.instanceResolved(key, resolution, isLocal: Self.isLocal(flags)))
        default:
            // One instance failing (usually a timeout) never fails the browse. The resolver
            // is kept until the instance is removed, in case Avahi reports it later.
            emit(aggregator.instanceFailed(key))
        }
        checkAllForNow()
    }

    /// The resolve timer or the deadline fired: send `.allForNow` now.
    fileprivate func allForNowTimerFired() {
        sendAllForNow()
    }

    private func checkAllForNow() {
        guard allForNow == .waitingForResolutions, aggregator.pendingCount == 0 else { return }
        sendAllForNow()
    }

    private func sendAllForNow() {
        guard allForNow != .sent, !finished else { return }
        allForNow = .sent
        resolveTimer = nil
        deadlineTimer = nil
        continuation.yield(.allForNow)
    }

    private func emit(_ events: [BrowserEvent]) {
        for event in events { continuation.yield(event) }
    }

    private func finish(_ error: DiscoveryError) {
        guard !finished else { return }
        finished = true
        resolveTimer = nil
        deadlineTimer = nil
        continuation.yield(.failure(error))
        continuation.finish()
    }

    private static func key(_ interface: AvahiIfIndex, _ protocol: AvahiProtocol, _ name: UnsafePointer<CChar>)
        -> ServiceAggregator.InstanceKey?
    {
        let family: ServiceAddress.Family
        switch `protocol` {
        case AvahiConstants.ipv4: family = .ipv4
        case AvahiConstants.ipv6: family = .ipv6
        default: return nil
        }
        return ServiceAggregator.InstanceKey(interfaceIndex: interface, family: family, name: String(cString: name))
    }

    private static func isLocal(_ flags: AvahiLookupResultFlags) -> Bool {
        flags.rawValue & (AVAHI_LOOKUP_RESULT_LOCAL.rawValue | AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue) != 0
    }
}

// MARK: - C callbacks (run on the poll thread with the lock held)

private func browserCore(_ userdata: UnsafeMutableRawPointer?) -> BrowserCore {
    guard let userdata else { preconditionFailure("Avahi callback without userdata") }
    return Unmanaged<BrowserCore>.fromOpaque(userdata).takeUnretainedValue()
}

private func browserClientCallback(
    _ client: OpaquePointer?, _ state: AvahiClientState, _ userdata: UnsafeMutableRawPointer?
) {
    browserCore(userdata).clientStateChanged(state)
}

private func browserCallback(
    _ browser: OpaquePointer?, _ interface: AvahiIfIndex, _ protocol: AvahiProtocol, _ event: AvahiBrowserEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ flags: AvahiLookupResultFlags, _ userdata: UnsafeMutableRawPointer?
) {
    guard let browser else { preconditionFailure("Avahi browser callback without a browser") }
    browserCore(userdata).browserEvent(
        browser, interface: interface, protocol: `protocol`, event: event, name: name, type: type, domain: domain,
        flags: flags)
}

private func browserResolverCallback(
    _ resolver: OpaquePointer?, _ interface: AvahiIfIndex, _ protocol: AvahiProtocol, _ event: AvahiResolverEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ host: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
    _ txt: UnsafeMutablePointer<AvahiStringList>?, _ flags: AvahiLookupResultFlags, _ userdata: UnsafeMutableRawPointer?
) {
    guard let resolver else { preconditionFailure("Avahi resolver callback without a resolver") }
    browserCore(userdata).resolverEvent(
        resolver, interface: interface, event: event, host: host, address: address, port: port, txt: txt, flags: flags)
}

private func browserAllForNowCallback(_ timeout: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    browserCore(userdata).allForNowTimerFired()
}
