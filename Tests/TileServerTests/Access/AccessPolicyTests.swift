import Foundation
import Testing

@testable import TileServer

/// Policy files without a socket: what they say, and each mistake named in one line without a key's bytes.
@Suite struct AccessPolicyTests {
    @Test func readsRulesKeysAndTheLongestPrefixWins() throws {
        let fixture = try PyramidFixture()
        let key = String(repeating: "x", count: 40)
        try fixture.write(key, to: "k.key")
        try fixture.write(
            #"{"default": "public", "images": {"s/": "private", "s/open/": "public"}, "keys": [{"id": "a", "file": "k.key"}, {"id": "b", "env": "TILER_TEST_POLICY_KEY"}], "sign": "b", "window": 600}"#,
            to: "p.json")
        let policy = try AccessPolicy(file: fixture.base + "/p.json", environment: ["TILER_TEST_POLICY_KEY": "  " + key + "y\n"])
        #expect(policy.visibility(of: "s/x") == .private && policy.visibility(of: "s/open/x") == .public && policy.visibility(of: "t") == .public)
        #expect(policy.signingKeyID == "b" && Set(policy.keyIDs) == ["a", "b"] && policy.windowSeconds == 600 && !policy.isAllPublic)
        #expect(!"\(policy)".contains(key))
    }

    @Test func namesEachMistake() throws {
        let fixture = try PyramidFixture()
        let key = String(repeating: "s", count: 40)
        try fixture.write(key, to: "k.key")
        try fixture.write("short", to: "short.key")
        let cases: [(String, String)] = [
            ("{", "not valid"),
            (#"{"keys": []}"#, "no signing key"),
            (#"{"keys": [{"id": "a", "file": "missing.key"}]}"#, "cannot read key a's file"),
            (#"{"keys": [{"id": "a", "file": "short.key"}]}"#, "shorter than 32 bytes"),
            (#"{"keys": [{"id": "a", "env": "TILER_TEST_UNSET_VARIABLE"}]}"#, "is not set"),
            (#"{"keys": [{"id": "a", "file": "k.key", "env": "X"}]}"#, "exactly one of file and env"),
            (#"{"keys": [{"id": "a b", "file": "k.key"}]}"#, "must be 1–32"),
            (#"{"keys": [{"id": "a", "file": "k.key"}, {"id": "a", "file": "k.key"}]}"#, "given twice"),
            (#"{"keys": [{"id": "a", "file": "k.key"}], "sign": "z"}"#, "sign names key z"),
            (#"{"keys": [{"id": "a", "file": "k.key"}], "default": "secret"}"#, "not valid"),
            (#"{"keys": [{"id": "a", "file": "k.key"}], "window": 5}"#, "window must be"),
            // A misspelt field would leave private images public without a word: it is refused.
            (#"{"keys": [{"id": "a", "file": "k.key"}], "image": {"a/": "private"}}"#, #"unknown field "image""#),
            (#"{"keys": [{"id": "a", "file": "k.key"}], "Default": "private"}"#, #"unknown field "Default""#),
            (#"{"keys": [{"id": "a", "file": "k.key", "path": "k.key"}]}"#, #"unknown field "path""#),
        ]
        for (text, expected) in cases {
            try fixture.write(text, to: "p.json")
            do {
                _ = try AccessPolicy(file: fixture.base + "/p.json", environment: [:])
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.message.contains(expected), "\(text): \(error.message)")
                #expect(!error.message.contains(key) && !error.message.contains("\n"))
            }
        }
        #expect(throws: AccessPolicyError.self) { try AccessPolicy(file: fixture.base + "/nothing.json", environment: [:]) }
    }

    /// Minting needs the signing key only: a back end that mints during a rotation need not hold the others.
    @Test func mintingReadsOnlyTheSigningKey() throws {
        let fixture = try PyramidFixture()
        try fixture.write(String(repeating: "m", count: 40), to: "k.key")
        try fixture.write(
            #"{"keys": [{"id": "old", "env": "TILER_TEST_UNSET_VARIABLE"}, {"id": "new", "file": "k.key"}], "sign": "new"}"#, to: "p.json")
        let path = fixture.base + "/p.json"
        #expect(throws: AccessPolicyError.self) { try AccessPolicy(file: path, environment: [:]) }
        let signing = try AccessPolicy(file: path, environment: [:], keysRead: .signing(nil))
        #expect(signing.signingKeyID == "new" && signing.keyIDs == ["new"])
        #expect(try AccessPolicy(file: path, environment: [:], keysRead: .signing("new")).signingKeyID == "new")
        #expect(throws: AccessPolicyError.self) { try AccessPolicy(file: path, environment: [:], keysRead: .signing("old")) }
        do {
            _ = try AccessPolicy(file: path, environment: [:], keysRead: .signing("other"))
            Issue.record("a key the policy lacks was accepted")
        } catch {
            #expect(error.message.contains("no key other"))
        }
        // The others' entries are still checked for their form.
        try fixture.write(#"{"keys": [{"id": "bad id", "env": "X"}, {"id": "new", "file": "k.key"}], "sign": "new"}"#, to: "p.json")
        #expect(throws: AccessPolicyError.self) { try AccessPolicy(file: path, environment: [:], keysRead: .signing(nil)) }
    }
}
