import ArgumentParser
import Foundation

/// The `tiler` command: lists the subcommands; each one parses, validates and delegates to a library.
@main
struct Tiler: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiler",
        abstract: "Slice huge PNG/JPEG images into Deep Zoom tile pyramids and serve them.",
        version: Tiler.version,
        subcommands: [Info.self, Slice.self, Serve.self, Visible.self, Sample.self, Demo.self]
    )

    /// Takes SIGINT/SIGTERM into the signal hub before any thread starts, then parses (with `TILER_*` variables, see
    /// ``EnvironmentDefaults``) and runs the command.
    static func main() {
        if let message = SubcommandSuggestion.message(for: CommandLine.arguments.dropFirst().first) {
            FileHandle.standardError.write(Data("Error: \(message)\nUsage: tiler <subcommand>\n  See 'tiler --help' for more information.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        SignalHub.shared.start()
        main(EnvironmentDefaults.apply(to: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
    }

    /// The version `tiler --version` prints.
    static let version = "0.9.0"
}
