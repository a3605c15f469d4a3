public import ShareDocuments

extension PreparedSend {
    /// An offer of a note (a short text whose content travels in the offer, docs/PROTOCOL.md §4)
    /// followed by the items of `files`; either may be nil.
    /// - Parameters:
    ///   - note: an entry made with ``ShareDocuments/ManifestEntry/note(name:text:mode:modificationSeconds:declaredType:)``.
    ///   - files: local files and folders sent with it (``scan(_:typeOf:)``).
    /// - Throws: ``SendError/cannotOffer(_:)`` when there is nothing to send, when the note breaks a
    ///   rule (too long, a name that is not one file name), or when its name is also an item of `files`.
    public static func offering(note: ManifestEntry?, files: PreparedSend?) throws(SendError) -> PreparedSend {
        guard let note else {
            guard let files else { throw .cannotOffer("there is nothing to send") }
            return files
        }
        let manifest: Manifest
        do {
            manifest = try Manifest(entries: [note] + (files?.manifest.entries ?? []))
        } catch .duplicatePath(let path), .collidingPaths(let path, _) {
            throw .cannotOffer(
                "the text and a file would both be named '\(DisplayText.escape(path))' on the receiver; "
                    + "give one of them another name")
        } catch {
            throw .cannotOffer("cannot send this text: \(error)")
        }
        // The note is item 0: it has no local folder, and no file entry of its own.
        return PreparedSend(
            manifest: manifest, sources: SourcePaths(manifest: manifest, itemParents: [""] + (files?.sources.itemParents ?? [])),
            itemSources: [""] + (files?.itemSources ?? []), skipped: files?.skipped ?? [],
            excludedCount: files?.excludedCount ?? 0, followLinks: files?.followLinks ?? [])
    }
}
