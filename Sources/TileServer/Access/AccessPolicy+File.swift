import Crypto
import FoundationEssentials

extension AccessPolicy {
    /// Reads the policy file at `path` (JSON) and the keys it names, from files (relative to the policy's folder) or
    /// from variables of `environment`:
    ///
    /// ```json
    /// {"default": "public", "images": {"slides/": "private", "slides/open/": "public"},
    ///  "keys": [{"id": "k2", "file": "k2.key"}, {"id": "k1", "env": "TILER_KEY_K1"}], "sign": "k2", "window": 3600}
    /// ```
    ///
    /// A key is the file's or variable's text without surrounding white space, at least 32 bytes. `sign` (default:
    /// the first key) signs; every key verifies. `window` (default 3600) is the signed tile URLs' window in seconds.
    ///
    /// With `keysRead` `.signing(id)` only the key that signs (`id`, else the file's `sign`, else its first key) is
    /// read — what minting a token needs: a back end that mints during a rotation need not hold the other keys. The
    /// other keys' entries are still checked for their form.
    ///
    /// - Throws: ``AccessPolicyError`` naming what is wrong (never a key's bytes).
    public init(file path: String, environment: [String: String], keysRead: KeysRead = .all) throws(AccessPolicyError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AccessPolicyError("cannot read the access policy \(path)")
        }
        let file: PolicyFile
        do {
            file = try JSONDecoder().decode(PolicyFile.self, from: data)
        } catch let error as DecodingError {
            throw AccessPolicyError("the access policy \(path) is not valid: \(Self.describe(error))")
        } catch {
            throw AccessPolicyError("the access policy \(path) is not valid JSON")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let only: String?
        switch keysRead {
        case .all: only = nil
        case .signing(let id): only = id ?? file.sign ?? file.keys.first?.id
        }
        var ids: Set<String> = []
        for entry in file.keys where !ids.insert(entry.id).inserted {
            throw AccessPolicyError("key id \(entry.id) is given twice")
        }
        var keys: [SigningKey] = []
        for entry in file.keys {
            guard only == nil || entry.id == only else {
                try Self.checkForm(entry)
                continue
            }
            keys.append(try Self.key(entry, folder: folder, environment: environment))
        }
        if let only, keys.isEmpty { throw AccessPolicyError("the policy has no key \(only)") }
        let rules = (file.images ?? [:]).map { Rule(prefix: $0.key, visibility: $0.value) }
        try self.init(
            rules: rules, defaultVisibility: file.default ?? .public, keys: keys, signingKeyID: only ?? file.sign,
            windowSeconds: file.window ?? 3600)
    }

    /// Which keys ``init(file:environment:keysRead:)`` reads.
    public enum KeysRead: Sendable {
        /// Every key: a server verifies with all of them.
        case all
        /// Only the key that signs: the one with this id, or (nil) the policy's signing key.
        case signing(String?)
    }

    /// Checks a key entry's form (its id, one source) without reading the key.
    private static func checkForm(_ entry: PolicyFile.Key) throws(AccessPolicyError) {
        guard SigningKey.isValidID(entry.id) else { throw AccessPolicyError("key id \(entry.id) must be 1–32 of A–Z a–z 0–9 _ -") }
        guard (entry.file == nil) != (entry.env == nil) else { throw AccessPolicyError("key \(entry.id) must give exactly one of file and env") }
    }

    private static func key(_ entry: PolicyFile.Key, folder: String, environment: [String: String]) throws(AccessPolicyError) -> SigningKey {
        try checkForm(entry)
        let text: String
        switch (entry.file, entry.env) {
        case (let file?, nil):
            let full = file.hasPrefix("/") ? file : folder + "/" + file
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: full)) else {
                throw AccessPolicyError("cannot read key \(entry.id)'s file \(full)")
            }
            text = String(decoding: data, as: UTF8.self)
        case (nil, let variable?):
            guard let value = environment[variable] else { throw AccessPolicyError("key \(entry.id)'s variable \(variable) is not set") }
            text = value
        default:
            throw AccessPolicyError("key \(entry.id) must give exactly one of file and env")
        }
        let secret = Array(text.utf8.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed())
        guard secret.count >= SigningKey.minimumBytes else {
            throw AccessPolicyError("key \(entry.id) is shorter than \(SigningKey.minimumBytes) bytes")
        }
        return SigningKey(id: entry.id, key: SymmetricKey(data: secret))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .dataCorrupted(let context), .valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default: "unreadable"
        }
    }
}

/// The policy file's shape. A field it does not know is refused, not skipped: a misspelt `"image"` or `"Default"`
/// would otherwise leave private images public without a word.
private struct PolicyFile: Decodable {
    struct Key: Decodable {
        let id: String
        let file: String?
        let env: String?

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case id, file, env
        }

        init(from decoder: any Decoder) throws {
            try FieldName.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            file = try container.decodeIfPresent(String.self, forKey: .file)
            env = try container.decodeIfPresent(String.self, forKey: .env)
        }
    }

    let `default`: AccessPolicy.Visibility?
    let images: [String: AccessPolicy.Visibility]?
    let keys: [Key]
    let sign: String?
    let window: Int?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case `default`, images, keys, sign, window
    }

    init(from decoder: any Decoder) throws {
        try FieldName.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        `default` = try container.decodeIfPresent(AccessPolicy.Visibility.self, forKey: .default)
        images = try container.decodeIfPresent([String: AccessPolicy.Visibility].self, forKey: .images)
        keys = try container.decode([Key].self, forKey: .keys)
        sign = try container.decodeIfPresent(String.self, forKey: .sign)
        window = try container.decodeIfPresent(Int.self, forKey: .window)
    }
}

/// Any field name of a JSON object, to find the ones a policy file does not know.
private struct FieldName: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Throws `dataCorrupted` naming the first field of the object `decoder` holds that is not in `known`.
    static func refuseUnknown(in decoder: any Decoder, known: [String]) throws {
        let container = try decoder.container(keyedBy: FieldName.self)
        for field in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !known.contains(field.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: field, in: container,
                debugDescription: "unknown field \"\(field.stringValue)\" (the fields are \(known.joined(separator: ", ")))")
        }
    }
}
