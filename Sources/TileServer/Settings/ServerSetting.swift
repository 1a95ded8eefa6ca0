/// One setting of the server as an operator meets it: a name — the `--name` option of `tiler serve` and the
/// `TILER_NAME` variable — a help line, a default, the values it takes, and where it goes in a
/// ``ServerConfiguration``. Each is declared once, in ``ServerSettings``; the command line, the environment and the
/// library's validation all derive from that declaration, and the library's errors name the setting.
public struct ServerSetting<Value: Sendable>: Sendable {
    /// The setting's name, e.g. `cache-mb`.
    public let name: String
    /// One line for `--help`.
    public let help: String
    /// The value when none is given.
    public let defaultValue: Value
    /// How the option takes its value on a command line and in the environment.
    public let kind: ServerSettingKind
    /// The values taken, as a phrase for errors (`0…65535`), or nil when every value of the type is.
    public let accepts: String?
    private let isValid: @Sendable (Value) -> Bool
    private let read: @Sendable (ServerConfiguration) -> Value
    private let write: @Sendable (inout ServerConfiguration, Value) -> Void

    init(
        _ name: String, _ help: String, default defaultValue: Value, kind: ServerSettingKind = .value, accepts: String? = nil,
        valid isValid: @escaping @Sendable (Value) -> Bool = { _ in true }, read: @escaping @Sendable (ServerConfiguration) -> Value,
        write: @escaping @Sendable (inout ServerConfiguration, Value) -> Void
    ) {
        self.name = name
        self.help = help
        self.defaultValue = defaultValue
        self.kind = kind
        self.accepts = accepts
        self.isValid = isValid
        self.read = read
        self.write = write
    }

    /// The environment variable: `TILER_` and the name in upper case with `-` written `_`.
    public var variable: String { ServerSettingKind.variable(for: name) }

    /// Why `value` is not taken — `port must be 0…65535 (got -1)` — or nil when it is.
    public func problem(with value: Value) -> String? {
        guard !isValid(value) else { return nil }
        return "\(name) must be \(accepts ?? "valid") (got \(value))"
    }

    /// `configuration` with this setting's value `value`.
    public func apply(_ value: Value, to configuration: inout ServerConfiguration) {
        write(&configuration, value)
    }

    /// This setting's value in `configuration`.
    public func value(in configuration: ServerConfiguration) -> Value {
        read(configuration)
    }

    /// The type-erased declaration, for lists of every setting.
    var erased: AnyServerSetting {
        AnyServerSetting(name: name, kind: kind, defaultValue: defaultValue) { configuration in
            problem(with: read(configuration))
        }
    }
}

/// How a setting takes its value: `--name VALUE`, repeated (`--name a --name b`; comma-separated in the
/// environment), or a flag (`--name`; `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` in the environment).
public enum ServerSettingKind: Sendable, Equatable {
    case value
    case repeatable
    case flag

    /// `TILER_` and `name` in upper case with `-` written `_`.
    public static func variable(for name: String) -> String {
        "TILER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }
}

/// A setting without its value type: what lists of every setting need (names, kinds, validation of a
/// configuration).
public struct AnyServerSetting: Sendable {
    public let name: String
    public let kind: ServerSettingKind
    /// The default, for `--help`-like listings.
    public let defaultValue: any Sendable
    /// Why `configuration`'s value of this setting is not taken, or nil.
    let problem: @Sendable (ServerConfiguration) -> String?

    /// The environment variable.
    public var variable: String { ServerSettingKind.variable(for: name) }
}
