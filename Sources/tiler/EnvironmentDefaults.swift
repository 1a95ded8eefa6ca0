import Foundation

/// Fills in options from `TILER_*` environment variables, as container users expect: `TILER_PORT=9000` is
/// `--port 9000`, `TILER_TRUST_PROXY=1` is `--trust-proxy`, `TILER_CORS_ORIGIN=a,b` is `--cors-origin a
/// --cors-origin b`, `TILER_ROOT` is the ROOT argument. An option given on the command line wins over its variable.
///
/// Each subcommand that reads the environment lists its options (``Serve/environmentOptions``); a test checks each
/// list against the command's own `--experimental-dump-help`, so an option added without its variable fails it.
enum EnvironmentDefaults {
    /// One option a variable can set.
    struct Option: Equatable, Sendable {
        /// How the option takes its value.
        enum Kind: Equatable, Sendable {
            /// `--name VALUE`.
            case value
            /// `--name VALUE`, repeatable: the variable's value is split at commas.
            case repeatable
            /// `--name`, set by a variable saying `1`, `true` or `yes` (any case).
            case flag
            /// The positional argument (at most one per command): appended when none was given.
            case positional
        }

        /// The long name without dashes (`cors-origin`), or the positional argument's name (`root`).
        let name: String
        let kind: Kind

        /// The variable: `TILER_` and the name in upper case with `-` written `_`.
        var variable: String { "TILER_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// The subcommands that read the environment, and their options.
    static let commands: [String: [Option]] = ["serve": Serve.environmentOptions]

    /// `arguments` (without the program name) with the options of its subcommand that it does not give added from
    /// `environment`; unchanged when the subcommand reads no variables or asks for help.
    static func apply(to arguments: [String], environment: [String: String]) -> [String] {
        guard let command = arguments.first, let options = commands[command] else { return arguments }
        let rest = arguments.dropFirst()
        if rest.contains(where: { $0 == "--help" || $0 == "-h" || $0 == "--experimental-dump-help" }) { return arguments }
        let positional = options.first { $0.kind == .positional }
        let given = given(in: Array(rest), options: options, positional: positional)
        var added: [String] = []
        for option in options where !given.contains(option.name) {
            guard let value = environment[option.variable], !value.isEmpty else { continue }
            switch option.kind {
            case .value:
                added += ["--\(option.name)", value]
            case .repeatable:
                for part in value.split(separator: ",") where !part.trimmingCharacters(in: .whitespaces).isEmpty {
                    added += ["--\(option.name)", part.trimmingCharacters(in: .whitespaces)]
                }
            case .flag:
                if ["1", "true", "yes"].contains(value.lowercased()) { added.append("--\(option.name)") }
            case .positional:
                break
            }
        }
        var result = [command] + added + rest
        if let positional, !given.contains(positional.name),
            let value = environment[positional.variable], !value.isEmpty
        {
            // After `--`, so that a value starting with `-` is still the argument.
            result += rest.contains("--") ? [value] : ["--", value]
        }
        return result
    }

    /// The names of the options (and of `positional`, the command's positional argument) `arguments` gives.
    private static func given(in arguments: [String], options: [Option], positional: Option?) -> Set<String> {
        var names: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                if index < arguments.count, let positional { names.insert(positional.name) }
                break
            }
            guard argument.hasPrefix("--") else {
                if let positional { names.insert(positional.name) }
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.split(separator: "=", maxSplits: 1).first ?? body)
            names.insert(name)
            if let option = options.first(where: { $0.name == name }), option.kind == .value || option.kind == .repeatable, !body.contains("=") {
                index += 1  // its value
            }
        }
        return names
    }
}
