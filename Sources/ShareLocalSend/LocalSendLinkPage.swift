import Foundation

/// The HTML pages of a download link (`share send --link`), for any browser: no script, no
/// external resource, plain links; every name is escaped.
public enum LocalSendLinkPage {
    /// The page listing `files`, each a link that downloads it.
    public static func files(_ files: [LocalSendLinkFile], session: String, alias: String) -> String {
        let total = files.reduce(UInt64(0)) { $0 + $1.size }
        var rows = ""
        for file in files {
            let address =
                "/api/localsend/v2/download?sessionId=\(queryValue(session))&fileId=\(queryValue(file.id))"
            rows += """
                <li><a href="\(escape(address))" download="\(escape(file.baseName))">\(escape(file.fileName))</a> \
                <span class="size">\(size(file.size))</span></li>

                """
        }
        let count = files.count == 1 ? "1 file" : "\(files.count) files"
        return document(
            title: "Files from \(alias)",
            body: """
                <h1>Files from \(escape(alias))</h1>
                <p>\(count), \(size(total)). Tap a name to download it.</p>
                <ul>
                \(rows)</ul>
                <p class="note">Sent with share over plain HTTP: anyone on this network who has this address can \
                download these files until share stops serving them.</p>
                """)
    }

    /// The form that asks for the PIN before the files are shown; `wrong`: the last one given was wrong.
    public static func pinForm(session: String, alias: String, wrong: Bool) -> String {
        document(
            title: "PIN for files from \(alias)",
            body: """
                <h1>Files from \(escape(alias))</h1>
                \(wrong ? "<p class=\"error\">That PIN is wrong. Try again.</p>\n" : "")<form method="get" action="/">
                <input type="hidden" name="session" value="\(escape(session))">
                <label>PIN <input type="password" name="pin" inputmode="numeric" autocomplete="off" autofocus></label>
                <button type="submit">Show the files</button>
                </form>
                <p>Ask the person sharing these files for the PIN they chose.</p>
                """)
    }

    /// A page that says why a request was refused.
    public static func refusal(_ title: String, _ text: String) -> String {
        document(title: title, body: "<h1>\(escape(title))</h1>\n<p>\(escape(text))</p>")
    }

    /// `text` with the characters that mean something in HTML (`& < > " '`) as entities.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// `text` percent-encoded for a query value.
    public static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A size as people read it (`812 bytes`, `4.2 MB`: powers of 1000).
    static func size(_ bytes: UInt64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes)
        for unit in ["kB", "MB", "GB", "TB"] {
            value /= 1000
            if value < 1000 || unit == "TB" { return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + unit }
        }
        return "\(bytes) bytes"
    }

    private static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>body{font-family:sans-serif;max-width:40em;margin:1em auto;padding:0 1em;line-height:1.5}\
        li{margin:.5em 0}.size,.note{color:#666}.error{color:#b00}</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
