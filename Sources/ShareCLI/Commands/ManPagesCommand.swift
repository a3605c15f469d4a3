import Foundation
import ShareKit

/// `share __man-pages DIR` (hidden): writes share(1) and every share-COMMAND(1) into DIR, as
/// `make install` does.
struct ManPagesCommand: ShareCommand {
    /// It writes only into the folder it is given: it runs without a home folder.
    static let keepsFilesUnderHome = false

    static let spec = CommandSpec(
        name: "__man-pages",
        abstract: "Write the man pages into a folder (used by make install).",
        arguments: [ArgumentSpec(name: "folder", help: "Where to write share.1 and share-COMMAND.1.")],
        hidden: true
    )

    let folder: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        folder = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let folder = ReceiveCommand.absolute(self.folder)
        for page in ManPageRenderer.pages(root: CommandTable.root, version: ShareCLI.version) {
            do {
                try AtomicFile.write(Data(page.text.utf8), to: folder + "/" + page.name, mode: 0o644)
            } catch {
                throw CLIError(error.description)
            }
        }
        return ExitCode.success
    }
}
