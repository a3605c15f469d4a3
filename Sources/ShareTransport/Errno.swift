#if canImport(Glibc)
import Glibc
#endif

/// `strerror` text for an errno value.
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

let EADDRINUSE_VALUE: Int32 = EADDRINUSE
