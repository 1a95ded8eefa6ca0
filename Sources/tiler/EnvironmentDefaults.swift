import Foundation
import TileServer

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
            /// `--name`, set by a variable saying `1`, `true`, `yes` or `on` (any case); `0`, `false`, `no` and `off` leave
            /// it unset; anything else is an error.
            case flag
            /// The positional argument (at most one per command): appended when none was given.
            case positional
        }

        /// The long name without dashes (`cors-origin`), or the positional argument's name (`root`).
        let name: String
        let kind: Kind

        init(name: String, kind: Kind) {
            self.name = name
            self.kind = kind
        }

        /// The option of server setting `setting`, taking its value as the setting does.
        init(_ setting: AnyServerSetting) {
            name = setting.name
            switch setting.kind {
            case .value: kind = .value
            case .repeatable: kind = .repeatable
            case .flag: kind = .flag
            }
        }

        /// The variable: `TILER_` and the name in upper case with `-` written `_` (the settings' own rule).
        var variable: String { ServerSettingKind.variable(for: name) }
    }

    /// The subcommands that read the environment, and their options.
    static let commands: [String: [Option]] = ["serve": Serve.environmentOptions, "token": Token.environmentOptions]

    /// A variable whose value no option takes: named with what it accepts (the command exits 64, as for a bad option).
    struct InvalidVariable: Error, CustomStringConvertible {
        let description: String
    }

    /// The values a flag's variable may say, in any case: on, and off.
    static let flagOn: Set<String> = ["1", "true", "yes", "on"]
    static let flagOff: Set<String> = ["0", "false", "no", "off"]

    /// `arguments` (without the program name) with the options of its subcommand that it does not give added from
    /// `environment`, and the variables each added option came from (by option name); unchanged when the subcommand
    /// reads no variables or asks for help.
    ///
    /// A variable that is set must say something: an empty value, a flag's value other than
    /// ``flagOn``/``flagOff``, or an empty item in a comma-separated list is an error, never the default in disguise.
    ///
    /// - Throws: ``InvalidVariable`` for the first variable that says nothing valid.
    static func apply(to arguments: [String], environment: [String: String]) throws(InvalidVariable) -> (
        arguments: [String], sources: [String: String]
    ) {
        guard let command = arguments.first, let options = commands[command] else { return (arguments, [:]) }
        let rest = arguments.dropFirst()
        if rest.contains(where: { $0 == "--help" || $0 == "-h" || $0 == "--experimental-dump-help" }) { return (arguments, [:]) }
        let positional = options.first { $0.kind == .positional }
        let given = given(in: Array(rest), options: options, positional: positional)
        var added: [String] = []
        var sources: [String: String] = [:]
        for option in options where !given.contains(option.name) {
            guard let value = environment[option.variable] else { continue }
            let shown = "\(option.variable)=\(value.debugDescription)"
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw InvalidVariable(description: "\(option.variable) is set but empty: give it a value or unset it")
            }
            sources[option.name] = shown
            switch option.kind {
            case .value:
                // `--name=value`, so that a value starting with `-` is still this option's value.
                added.append("--\(option.name)=\(value)")
            case .repeatable:
                let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard !parts.contains(where: \.isEmpty) else {
                    throw InvalidVariable(description: "\(shown) has an empty item: give comma-separated values, e.g. \(option.variable)=a,b")
                }
                added += parts.map { "--\(option.name)=\($0)" }
            case .flag:
                let word = value.trimmingCharacters(in: .whitespaces).lowercased()
                if flagOn.contains(word) {
                    added.append("--\(option.name)")
                } else if !flagOff.contains(word) {
                    throw InvalidVariable(description: "\(shown) is not on or off: give 1, true, yes or on, or 0, false, no or off")
                }
            case .positional:
                break
            }
        }
        var result = [command] + added + rest
        if let positional, !given.contains(positional.name), let value = environment[positional.variable] {
            guard !value.isEmpty else {
                throw InvalidVariable(description: "\(positional.variable) is set but empty: give it a value or unset it")
            }
            sources[positional.name] = "\(positional.variable)=\(value.debugDescription)"
            // After `--`, so that a value starting with `-` is still the argument.
            result += rest.contains("--") ? [value] : ["--", value]
        }
        return (result, sources)
    }

    /// `message` (a parse or validation error) followed by the variable that supplied the option it names, if one
    /// did: `--port must be 0…65535 (got -1) (from TILER_PORT="-1")`.
    static func attributing(_ message: String, sources: [String: String]) -> String {
        for (name, shown) in sources.sorted(by: { $0.key.count > $1.key.count }) {
            let mentioned = name == "root" ? message.contains("ROOT") || message.contains("<root>") : mentions(message, option: name)
            if mentioned { return "\(message) (from \(shown))" }
        }
        return message
    }

    /// Whether `message` names `--name` as a whole option (not as the start of a longer one).
    private static func mentions(_ message: String, option name: String) -> Bool {
        var search = message[...]
        while let range = search.range(of: "--\(name)") {
            let next = search[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            search = search[range.upperBound...]
        }
        return false
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
