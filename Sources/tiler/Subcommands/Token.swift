import ArgumentParser
import Foundation
import TileServer

/// `tiler token`: prints an access token for private images, signed with a key of the access policy.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an access token for private images (see docs/private-images.md for its format).",
        discussion: """
            The token grants --images (a name, or a prefix ending in * such as 'slides/2024/*') until --expires from \
            now, for --scope (read, the default, or write), signed with the policy's signing key (or --key). Send it \
            as Authorization: Bearer TOKEN or ?token=TOKEN. --access can also be given as TILER_ACCESS.
            """
    )

    @Option(name: .customLong(ServerSettings.access.name), help: "The access policy file that holds the signing keys.")
    var access: String

    @Option(help: "The images granted: a name, or a prefix ending in * (slides/2024/*; * alone: every image).")
    var images: String

    @Option(help: "How long the token lasts: a number with s, m, h or d (90s, 15m, 2h, 7d).")
    var expires: String

    @Option(help: "What it grants: read or write.")
    var scope: String = AccessToken.Scope.read.rawValue

    @Option(help: "The id of the key to sign with (default: the policy's signing key).")
    var key: String?

    /// The options `TILER_*` variables can set.
    static let environmentOptions: [EnvironmentDefaults.Option] = [.init(name: ServerSettings.access.name, kind: .value)]

    func validate() throws {
        guard Self.seconds(expires) != nil else { throw ValidationError("--expires must be a number followed by s, m, h or d (got \(expires))") }
        guard AccessToken.Scope(rawValue: scope) != nil else { throw ValidationError("--scope must be read or write (got \(scope))") }
        guard AccessToken.isValidPattern(images) else {
            throw ValidationError("--images must be a name or a prefix ending in * (got \(images))")
        }
    }

    func run() throws {
        let policy: AccessPolicy
        do {
            // Only the key that signs is read: a back end minting during a rotation need not hold the others.
            policy = try AccessPolicy(file: access, environment: ProcessInfo.processInfo.environment, keysRead: .signing(key))
        } catch {
            throw CommandFailure(error.message)
        }
        let expiry = Int(Date().timeIntervalSince1970) + (Self.seconds(expires) ?? 0)
        let token: String
        do {
            token = try policy.mint(images: images, expires: expiry, scope: AccessToken.Scope(rawValue: scope) ?? .read, keyID: key)
        } catch {
            throw CommandFailure(error.message)
        }
        print(token)
    }

    /// `90s`, `15m`, `2h`, `7d` in seconds (at most 366 days), or nil.
    static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        default: return nil
        }
        let total = count.multipliedReportingOverflow(by: scale)
        guard !total.overflow, total.partialValue <= 366 * 86_400 else { return nil }
        return total.partialValue
    }
}
