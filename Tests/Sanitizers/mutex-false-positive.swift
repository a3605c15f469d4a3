// Shows the ThreadSanitizer false positive that Tests/Sanitizers/tsan.supp suppresses. Not part of
// the package; run it by hand to check whether a new toolchain still needs the suppressions:
//
//   swiftc -sanitize=thread -g Tests/Sanitizers/mutex-false-positive.swift -o /tmp/mutex-fp && /tmp/mutex-fp
//   swiftc -sanitize=thread -g -D USE_NSLOCK Tests/Sanitizers/mutex-false-positive.swift -o /tmp/nslock && /tmp/nslock
//
// With Synchronization.Mutex (Swift 6.3.1, Linux) TSan reports a "Swift access race" between the
// two withLock bodies on every run, although every access is under the lock and the count comes
// out right. With NSLock (a pthread mutex, which TSan intercepts) it reports nothing. The Mutex
// hands a contended lock over through a futex inside libswiftSynchronization.so, which is not
// instrumented, so TSan never sees the release and acquire.
import Foundation
import Synchronization

#if USE_NSLOCK
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var state: (failure: Int?, written: Int64) = (nil, 0)
    func add() { lock.withLock { state.written += 1 } }
    func failure() -> Int? { lock.withLock { state.failure } }
    var written: Int64 { lock.withLock { state.written } }
}
#else
final class Counter: Sendable {
    private let state = Mutex<(failure: Int?, written: Int64)>((nil, 0))
    func add() { state.withLock { $0.written += 1 } }
    func failure() -> Int? { state.withLock { $0.failure } }
    var written: Int64 { state.withLock { $0.written } }
}
#endif

let counter = Counter()
let done = DispatchSemaphore(value: 0)
for role in 0..<2 {
    Thread {
        for _ in 0..<200_000 {
            if role == 0 { counter.add() } else { _ = counter.failure() }
        }
        done.signal()
    }.start()
}
done.wait()
done.wait()
print("written: \(counter.written) (expected 200000)")
