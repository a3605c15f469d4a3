import ShareCLI

@main
struct Entrypoint {
    static func main() async {
        print("share")
    }
}
