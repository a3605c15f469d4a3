import Foundation
import ShareCLI

/// The `share` executable: everything lives in ShareCLI.
@main
struct Entrypoint {
    static func main() {
        // Help, usage errors and commands that only read local files (`share types resolve`) finish
        // on this thread: Swift's concurrency runtime starts no thread for them.
        if let status = ShareCLI.runWithoutTasks(CommandLine.arguments, console: .standard) { exit(status) }
        Task { exit(await ShareCLI.run(CommandLine.arguments, console: .standard)) }
        dispatchMain()
    }
}
