import Crypto
import Foundation
import Testing

@testable import HTTPCore
@testable import TileServer

/// Tokens without a socket: the documented format, what they grant, and each way one is refused.
@Suite struct AccessTokenTests {
    @Test func aTokenIsTheDocumentedFormat() throws {
        let fixture = try PrivateFixture()
        let text = try fixture.token("slides/2024/*", seconds: 600)
        let parts = text.split(separator: ".")
        #expect(parts.count == 4 && parts[0] == "tiler1" && parts[1] == "k1")
        let claimsBytes = try #require(Base64URL.decode(parts[2]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any])
        #expect(claims["img"] as? String == "slides/2024/*" && claims["scope"] as? String == "read")
        #expect((claims["exp"] as? Int ?? 0) > Int(Date().timeIntervalSince1970))
        // SIG = HMAC-SHA256(key, "tiler1.KID.CLAIMS"), recomputed here with the key's bytes.
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("tiler1.k1.\(parts[2])".utf8), using: SymmetricKey(data: Array(PrivateFixture.keyOne.utf8)))
        #expect(Base64URL.encode(Array(mac)) == String(parts[3]))
    }

    @Test func verifiesWhatItMints() throws {
        let fixture = try PrivateFixture()
        let now = Int(Date().timeIntervalSince1970)
        for key in ["k1", "k2"] {
            let token = try fixture.policy.verify(token: try fixture.token("a/*", key: key)[...], now: now)
            #expect(token.images == "a/*" && token.keyID == key && token.scope == .read)
        }
    }

    @Test func refusesEachBadToken() throws {
        let fixture = try PrivateFixture()
        let now = Int(Date().timeIntervalSince1970)
        let good = try fixture.token("a/*")
        let parts = good.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(#"{"img":"*","exp":9999999999,"scope":"read"}"#.utf8))
        let cases: [(String, AccessRefusal)] = [
            ("", .malformed), ("garbage", .malformed), ("tiler1.k1.x", .malformed), ("tiler2.k1.\(parts[2]).\(parts[3])", .malformed),
            ("tiler1.k1.\(parts[2]).\(parts[3])=", .malformed), ("tiler1.k9.\(parts[2]).\(parts[3])", .unknownKey),
            ("tiler1.k2.\(parts[2]).\(parts[3])", .badSignature), ("tiler1.k1.\(forged).\(parts[3])", .badSignature),
            (try fixture.token("a/*", seconds: -1), .expired),
        ]
        for (text, refusal) in cases {
            #expect(throws: refusal, "\(text)") { try fixture.policy.verify(token: text[...], now: now) }
        }
    }

    /// A token whose claims give a member twice is refused (400) however the names are spelt, even when correctly
    /// signed: parsers disagree on which of the two counts.
    @Test func refusesClaimsThatGiveAMemberTwice() throws {
        let fixture = try PrivateFixture()
        let now = Int(Date().timeIntervalSince1970)
        let later = now + 600
        let repeated = [
            #"{"img":"pub/open","img":"*","exp":\#(later),"scope":"read"}"#,
            #"{"img":"*","exp":\#(later),"scope":"write","scope":"read"}"#,
            #"{"img":"*","exp":1,"exp":\#(later),"scope":"read"}"#,
            #"{"img":"a/*","\u0069mg":"*","exp":\#(later),"scope":"read"}"#,
            #"{ "img" : "a/*" , "exp" : \#(later) , "scope" : "read" , "img" : "*" }"#,
        ]
        for claims in repeated {
            #expect(throws: AccessRefusal.repeatedClaim, "\(claims)") { try fixture.policy.verify(token: Self.signed(claims)[...], now: now) }
        }
        // The same members once each (nested values and escaped quotes skipped whole) are taken.
        let once = #"{"img":"a/\"x*","exp":\#(later),"scope":"read","extra":{"img":"b","exp":[1,{"img":2}]}}"#
        let token = try fixture.policy.verify(token: Self.signed(once)[...], now: now)
        #expect(token.images == #"a/"x*"# && token.scope == .read)
        #expect(ClaimKeys.repeatsAName(Array(#"{"a":1,"b":{"a":2}}"#.utf8)) == false)
        #expect(ClaimKeys.repeatsAName(Array(#"{"a":1,"b":2,"a":3}"#.utf8)) == true)
        #expect(ClaimKeys.repeatsAName(Array("not json".utf8)) == false)
    }

    /// A token for `claims` as they are written, signed with key `k1` of ``PrivateFixture``.
    static func signed(_ claims: String) -> String {
        let head = "tiler1.k1." + Base64URL.encode(Array(claims.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(head.utf8), using: SymmetricKey(data: Array(PrivateFixture.keyOne.utf8)))
        return head + "." + Base64URL.encode(Array(mac))
    }

    @Test func grantsNamesAndPrefixes() {
        let prefix = AccessToken(images: "a/*", expires: 0, scope: .read, keyID: "k")
        #expect(prefix.grants("a/b") && prefix.grants("a/b/c") && !prefix.grants("ab") && !prefix.grants("a") && !prefix.grants("b/a/x"))
        let exact = AccessToken(images: "a/b", expires: 0, scope: .read, keyID: "k")
        #expect(exact.grants("a/b") && !exact.grants("a/bc") && !exact.grants("a/b/c"))
        #expect(AccessToken(images: "*", expires: 0, scope: .read, keyID: "k").grants("anything/at/all"))
        #expect(
            AccessToken.isValidPattern("a/*") && !AccessToken.isValidPattern("a/*/b") && !AccessToken.isValidPattern("**")
                && !AccessToken.isValidPattern(""))
    }

    @Test func base64URLRoundTripsAndRefusesOtherText() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
            #expect(
                text
                    == Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: ""))
        }
        for bad in ["A", "AB=", "A+", "A/", "AB C", "AB\u{0}", "AF"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}
