import Foundation
import ShareCLI

/// The `share` executable: everything lives in ShareCLI.
@main
struct Entrypoint {
    static func main() async {
        exit(await ShareCLI.run(CommandLine.arguments, console: .standard))
    }
}
