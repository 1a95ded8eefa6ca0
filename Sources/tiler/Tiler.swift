import ArgumentParser
import Foundation

/// The `tiler` command: lists the subcommands; each one parses, validates and delegates to a library.
@main
struct Tiler: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiler",
        abstract: "Slice huge PNG/JPEG images into Deep Zoom tile pyramids and serve them.",
        version: Tiler.version,
        subcommands: [Info.self, Slice.self, Serve.self, Token.self, Visible.self, Sample.self, Demo.self]
    )

    /// Takes SIGINT/SIGTERM into the signal hub before any thread starts, then parses (with `TILER_*` variables, see
    /// ``EnvironmentDefaults``) and runs the command.
    static func main() {
        if let message = SubcommandSuggestion.message(for: CommandLine.arguments.dropFirst().first) {
            FileHandle.standardError.write(Data("Error: \(message)\nUsage: tiler <subcommand>\n  See 'tiler --help' for more information.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        SignalHub.shared.start()
        let applied: (arguments: [String], sources: [String: String])
        do {
            applied = try EnvironmentDefaults.apply(to: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        guard !applied.sources.isEmpty else { return main(applied.arguments) }
        // Options that came from variables: an error about one of them names its variable too.
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(applied.arguments)
        } catch {
            exitNaming(error, sources: applied.sources)
        }
        do {
            try command.run()
        } catch {
            exitNaming(error, sources: applied.sources)
        }
    }

    /// Exits as ArgumentParser would for `error`, its message followed by the variable that set the option it names.
    private static func exitNaming(_ error: any Error, sources: [String: String]) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success || message.isEmpty { exit(withError: error) }
        let lines = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        var text = EnvironmentDefaults.attributing(String(lines[0]), sources: sources)
        if lines.count > 1 { text += "\n" + lines[1] }
        FileHandle.standardError.write(Data((text + "\n").utf8))
        Foundation.exit(code.rawValue)
    }

    /// The version `tiler --version` prints.
    static let version = "0.9.0"
}
