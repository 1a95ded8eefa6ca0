import ArgumentParser
import TileServer

// The command-line face of a ``ServerSetting``: `@Option(ServerSettings.port) var port: Int` takes the option's long
// name, its help line and its default from the one declaration, so that an option cannot drift from its setting.

extension Option where Value: ExpressibleByArgument & Sendable {
    /// `--NAME VALUE`, its help and its default from `setting`.
    init(_ setting: ServerSetting<Value>) {
        self.init(wrappedValue: setting.defaultValue, name: .customLong(setting.name), help: ArgumentHelp(setting.help))
    }
}

extension Option {
    /// `--NAME VALUE`, optional, its help from `setting` (whose default is nil: the option's absence).
    init<Wrapped: ExpressibleByArgument & Sendable>(_ setting: ServerSetting<Wrapped?>) where Value == Wrapped? {
        precondition(setting.defaultValue == nil, "an optional setting's default is its absence")
        self.init(name: .customLong(setting.name), help: ArgumentHelp(setting.help))
    }

    /// `--NAME VALUE`, repeatable, its help and its default from `setting`.
    init<Element: ExpressibleByArgument & Sendable>(_ setting: ServerSetting<[Element]>) where Value == [Element] {
        self.init(wrappedValue: setting.defaultValue, name: .customLong(setting.name), help: ArgumentHelp(setting.help))
    }
}

extension Flag where Value == Bool {
    /// `--NAME`, its help and its default from `setting`.
    init(_ setting: ServerSetting<Bool>) {
        self.init(wrappedValue: setting.defaultValue, name: .customLong(setting.name), help: ArgumentHelp(setting.help))
    }
}
