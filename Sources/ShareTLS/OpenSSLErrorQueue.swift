// ShareTLS: reading OpenSSL's per-thread error queue into Swift values.

internal import CShareOpenSSL

/// One entry of OpenSSL's error queue.
struct OpenSSLErrorEntry: Sendable, Equatable {
    /// The packed error code (`ERR_get_error_all`).
    var code: UInt

    /// The library that raised it (`ERR_LIB_SSL`, `ERR_LIB_X509`, …).
    var library: Int32 { ERR_GET_LIB(code) }

    /// The library-specific reason (`SSL_R_…`, `X509_R_…`).
    var reason: Int32 { ERR_GET_REASON(code) }

    /// OpenSSL's text for the reason, plus any detail string it attached (e.g. "Verify error:…").
    var text: String
}

/// OpenSSL's error queue for the calling thread.
///
/// Rules (from swift-nio-ssl): call ``clear()`` before each OpenSSL operation whose failure we report, and
/// ``drain()`` right at the failure site, so that a stale error from an earlier call is never reported.
enum OpenSSLErrorQueue {
    /// Empties the queue. The corresponding C function is `ERR_clear_error`.
    static func clear() {
        openssl.ERR_clear_error()
    }

    /// Removes and returns every entry of the queue, oldest first.
    static func drain() -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = openssl.ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var text: String
            if let reason = openssl.ERR_reason_error_string(code) {
                text = String(cString: reason)
            } else {
                text = "error \(ERR_GET_REASON(code)) in library \(ERR_GET_LIB(code))"
            }
            if let data, flags & ERR_TXT_STRING != 0 {
                let detail = String(cString: data)
                if !detail.isEmpty { text += " (\(detail))" }
            }
            entries.append(OpenSSLErrorEntry(code: code, text: text))
            if entries.count >= 32 {
                // A queue this long is noise; keep the first entries and drop the rest.
                openssl.ERR_clear_error()
                break
            }
        }
        return entries
    }

    /// The texts of every queued entry (draining the queue), or `fallback` if it was empty.
    static func drainTexts(fallback: String) -> [String] {
        let texts = drain().map(\.text)
        return texts.isEmpty ? [fallback] : texts
    }
}
