import FuzzSupport
import ShareDocuments
import ShareLocalSend

/// libFuzzer entry point: `input` is a LocalSend message as a peer could send it: a multicast
/// announcement, a `/register` body or a `prepare-upload` request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLocalSend(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    LocalSendFuzz.run(UnsafeBufferPointer(start: data, count: count))
    return 0
}

/// Fuzzes the LocalSend parsers (docs/PROTOCOL.md §15). A refused message must say why in text that
/// is safe to print. An accepted device description keeps its bounds and reads back from its own
/// JSON as the same device; an accepted `prepare-upload` names only paths share's rules accept, each
/// once, within the counts and sizes of ``LocalSendLimits``, and becomes share's own offer with every
/// file once, at its own name and size (or is refused with a reason).
enum LocalSendFuzz {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        do {
            let device = try LocalSendDevice(json: input)
            Invariant.require(device.alias.utf8.count <= LocalSendLimits.aliasBytes, "an alias over its bound")
            Invariant.require(
                !device.fingerprint.isEmpty && device.fingerprint.utf8.count <= LocalSendLimits.fingerprintBytes,
                "a fingerprint out of its bounds")
            Invariant.require(device.port > 0, "port 0 accepted")
            Invariant.require((try? LocalSendDevice(json: device.json)) == device, "a device does not read back from its JSON")
        } catch {
            Invariant.requirePrintable(error.description, "the refusal of a device description")
        }
        let limits = LocalSendLimits.Upload()
        do {
            let request = try LocalSendUploadRequest(json: input, limits: limits)
            Invariant.require(request.files.count <= limits.files, "more files than the limit")
            var names = Set<String>()
            var total: UInt64 = 0
            for file in request.files {
                Invariant.require(PathRules.problem(in: file.fileName) == nil, "an unsafe name accepted: \(file.fileName.debugDescription)")
                Invariant.require(names.insert(file.fileName).inserted, "a name accepted twice")
                Invariant.require(file.size <= limits.fileBytes, "a file over the size limit")
                Invariant.require(file.sha256 == nil || file.sha256?.count == 32, "a digest of the wrong length")
                total += file.size
            }
            Invariant.require(total == request.totalBytes && total <= limits.totalBytes, "the total is wrong or over the limit")
            // As share's own offer: every file once, at its id, with its size; folders only from the names.
            do {
                let offer = try LocalSendOffer(request, modificationSeconds: 0)
                Invariant.require(offer.fileIDs.count == request.files.count, "a file lost or added in the offer")
                Invariant.require(offer.manifest.totalBytes == request.totalBytes, "the offer's total differs")
                for (index, id) in offer.fileIDs.enumerated() {
                    let entry = offer.manifest.entries[offer.manifest.fileEntryIndices[index]]
                    let file = request.files.first { $0.id == id }
                    Invariant.require(file?.fileName == entry.path && file?.size == entry.size, "a file at the wrong place")
                    Invariant.require(offer.fileIndices[id] == index, "an id mapped to another file")
                }
            } catch {
                Invariant.requirePrintable(error.description, "the refusal of an offer")
            }
        } catch {
            Invariant.requirePrintable(error.description, "the refusal of a prepare-upload")
        }
    }
}
