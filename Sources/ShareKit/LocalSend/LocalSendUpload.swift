import Foundation
import ShareDocuments
import ShareTLS

/// The pieces of LocalSend's upload API a sender builds and reads: the files of an offer as
/// LocalSend names them, the `prepare-upload` body, and the session the device answers with.
enum LocalSendUpload {
    /// One file as LocalSend sees it.
    struct File {
        /// Where its bytes come from.
        enum Source {
            /// File `index` of the prepared send.
            case file(Int)
            /// A text (`--text`), sent as a `.txt` file.
            case bytes([UInt8])
        }

        var id: String
        var name: String
        var size: UInt64
        var sha256: String
        var fileType: String
        var source: Source
    }

    /// The session a device opened: its id and a token for each file it accepted.
    struct Session {
        var id: String
        var tokens: [String: String]
    }

    /// The files of `prepared` (hashed now: the device checks them), and what LocalSend cannot
    /// carry (links, empty folders).
    static func files(of prepared: PreparedSend) throws(LocalSendError) -> (files: [File], leftOut: [String]) {
        var files: [File] = []
        var leftOut: [String] = []
        var fileIndex = 0
        let manifest = prepared.manifest
        for (position, entry) in manifest.entries.enumerated() {
            switch entry.kind {
            case .file:
                defer { fileIndex += 1 }
                let index = fileIndex
                let digest: String
                switch SourceFile.open(prepared, index: index) {
                case .failure(let failure): throw LocalSendError(failure.message)
                case .success(let file):
                    switch file.hashPrefix(file.size) {
                    case .failure(let failure): throw LocalSendError(failure.message)
                    case .success(let hasher): digest = Hex.encode(hasher.finalize())
                    }
                }
                files.append(
                    File(
                        id: "f\(position)", name: entry.path, size: entry.size, sha256: digest,
                        fileType: "application/octet-stream", source: .file(index)))
            case .note:
                let name = entry.path.lowercased().hasSuffix(".txt") ? entry.path : entry.path + ".txt"
                files.append(
                    File(
                        id: "f\(position)", name: name, size: UInt64(entry.content.count),
                        sha256: Hex.encode(SHA256.hash(entry.content)), fileType: "text/plain", source: .bytes(entry.content)))
            case .symlink:
                leftOut.append(entry.path)
            case .directory:
                let path = entry.path + "/"
                if !manifest.entries.contains(where: { $0.path.hasPrefix(path) }) { leftOut.append(entry.path) }
            }
        }
        return (files, leftOut)
    }

    /// The body of `prepare-upload`: this device, and the files keyed by id.
    static func prepareBody(_ files: [File], device: [UInt8]) -> [UInt8] {
        let info = (try? JSONSerialization.jsonObject(with: Data(device))) ?? [:]
        var described: [String: Any] = [:]
        for file in files {
            described[file.id] = [
                "id": file.id, "fileName": file.name, "size": file.size, "fileType": file.fileType, "sha256": file.sha256,
                "preview": NSNull(),
            ] as [String: Any]
        }
        let body: [String: Any] = ["info": info, "files": described]
        return Array((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data())
    }

    /// Reads the answer of `prepare-upload`; every token must be for a file that was offered.
    static func session(from body: [UInt8], files: [File], device: String) throws(LocalSendError) -> Session {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let id = object["sessionId"] as? String, !id.isEmpty, id.utf8.count <= 256,
            let tokens = object["files"] as? [String: Any]
        else { throw LocalSendError("\(device) answered prepare-upload with something that is not a session") }
        var accepted: [String: String] = [:]
        let offered = Set(files.map(\.id))
        for (fileID, token) in tokens {
            guard offered.contains(fileID), let token = token as? String, !token.isEmpty, token.utf8.count <= 256 else {
                throw LocalSendError("\(device) answered prepare-upload with a token for a file that was not offered")
            }
            accepted[fileID] = token
        }
        return Session(id: id, tokens: accepted)
    }

    /// `text` percent-encoded for a query value.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
