import Foundation

/// The AWS shared `credentials` and `config` files: INI sections of `key = value` lines, as the CLI and SDKs read them.
///
/// In `credentials` a profile's section is `[NAME]`; in `config` it is `[profile NAME]`, except `[default]`. Comments
/// start with `#` or `;`; keys are case-insensitive; an indented line continues a nested block (`s3 =` then
/// `  addressing_style = path`), read as `s3.addressing_style`.
package struct AWSSharedConfigFile: Sendable, Equatable {
    /// Each section's settings, by section name as written between the brackets (`default`, `profile dev`).
    package private(set) var sections: [String: [String: String]] = [:]

    /// Parses a file's text.
    package init(text: String) {
        var section: String?
        var nested: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                section = name
                nested = nil
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            guard let section, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if indented, let nested {
                sections[section]?["\(nested).\(key)"] = value
            } else if value.isEmpty {
                nested = key
            } else {
                nested = nil
                sections[section]?[key] = value
            }
        }
    }

    /// Reads and parses `path`; nil when the file does not exist or cannot be read.
    package init?(contentsOf path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(text: String(decoding: data, as: UTF8.self))
    }

    /// The settings of `profile` in a credentials file (`[NAME]`).
    package func credentialsProfile(_ profile: String) -> [String: String]? {
        sections[profile]
    }

    /// The settings of `profile` in a config file (`[profile NAME]`, or `[default]`).
    package func configProfile(_ profile: String) -> [String: String]? {
        profile == "default" ? (sections["default"] ?? sections["profile default"]) : sections["profile \(profile)"]
    }
}
