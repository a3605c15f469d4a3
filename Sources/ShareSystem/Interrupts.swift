#if canImport(Glibc)
    import Glibc
#endif

/// Makes a system call until a signal does not interrupt it: again while it returns -1 with `errno`
/// EINTR. Returns its last result, with `errno` as that call left it.
package func retryingOnInterrupt<Result: FixedWidthInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
