import ArgumentParser

/// The `tiler` command: lists the subcommands; each one parses, validates and delegates to a library.
@main
struct Tiler: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiler",
        abstract: "Slice huge PNG/JPEG images into Deep Zoom tile pyramids and serve them.",
        subcommands: [Info.self, Slice.self, Serve.self, Visible.self, Sample.self, Demo.self]
    )

    /// Takes SIGINT/SIGTERM into the signal hub before any thread starts, then parses and runs the command.
    static func main() {
        SignalHub.shared.start()
        main(nil)
    }
}
