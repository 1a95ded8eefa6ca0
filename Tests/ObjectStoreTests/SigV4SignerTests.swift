import Foundation
import Testing

@testable import ObjectStore

/// The examples of AWS's S3 documentation, "Signature Calculations for the Authorization Header: Transferring Payload
/// in a Single Chunk": bucket examplebucket, key pair AKIAIOSFODNN7EXAMPLE, 24 May 2013 00:00:00 UTC, us-east-1.
@Suite struct SigV4SignerTests {
    static let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let signer = SigV4Signer(credentials: credentials, region: "us-east-1")
    static let may24 = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = ("Host", "examplebucket.s3.amazonaws.com")

    private func authorization(_ headers: [(String, String)]) -> String {
        headers.first { $0.0 == "authorization" }?.1 ?? ""
    }

    @Test func getObjectWithRange() {
        let signed = Self.signer.sign(
            method: "GET", path: "/test.txt", query: [], headers: [Self.host, ("Range", "bytes=0-9")], payloadHash: SigV4Signer.emptyPayloadHash,
            date: Self.may24)
        #expect(
            authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    @Test func putObjectWithSignedPayload() {
        let body = Array("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.payloadHash(body)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = [Self.host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")]
        let signed = Self.signer.sign(
            method: "PUT", path: "/" + SigV4Signer.encodePath("test$file.text"), query: [], headers: headers, payloadHash: hash, date: Self.may24)
        #expect(authorization(signed).contains("SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"))
        #expect(authorization(signed).hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"))
    }

    @Test func getBucketLifecycleWithAValuelessQuery() {
        let signed = Self.signer.sign(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(authorization(signed).hasSuffix("Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))
    }

    @Test func listObjectsSortsTheQuery() {
        let signed = Self.signer.sign(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash,
            date: Self.may24)
        #expect(authorization(signed).hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
    }

    @Test func aSessionTokenIsSentAndSigned() {
        let temporary = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret", sessionToken: "TOKEN"), region: "eu-west-1")
        let signed = temporary.sign(
            method: "GET", path: "/", query: [], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(signed.contains { $0 == ("x-amz-security-token", "TOKEN") })
        #expect(
            authorization(signed).contains(
                "/20130524/eu-west-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
    }

    @Test func encodingKeepsOnlyUnreservedCharacters() {
        #expect(SigV4Signer.encode("a-b_c.d~e", keepSlash: false) == "a-b_c.d~e")
        #expect(SigV4Signer.encode("a b/c+d=é*", keepSlash: false) == "a%20b%2Fc%2Bd%3D%C3%A9%2A")
        #expect(SigV4Signer.encodePath("slides/case 1/a+b.szi") == "slides/case%201/a%2Bb.szi")
        #expect(SigV4Signer.canonicalQuery([("uploads", ""), ("prefix", "a/b"), ("list-type", "2")]) == "list-type=2&prefix=a%2Fb&uploads=")
    }

    @Test func headerValuesAreTrimmedAndTheirSpacesCollapsed() {
        let (request, signed) = SigV4Signer.canonicalRequest(
            method: "GET", path: "/", query: [], headers: [("X-Amz-Meta-A", "  one   two  "), ("host", "h")], payloadHash: "p")
        #expect(request == "GET\n/\n\nhost:h\nx-amz-meta-a:one two\n\nhost;x-amz-meta-a\np")
        #expect(signed == "host;x-amz-meta-a")
    }

    @Test func sameNamedHeadersAreJoinedInOrderAndTabsTrimmed() {
        let (request, signed) = SigV4Signer.canonicalRequest(
            method: "GET", path: "", query: [], headers: [("X-B", "\t2 "), ("host", "h"), ("x-b", "1"), ("X-A", "")], payloadHash: "p")
        #expect(request == "GET\n/\n\nhost:h\nx-a:\nx-b:2,1\n\nhost;x-a;x-b\np")
        #expect(signed == "host;x-a;x-b")
    }

    /// The signing key is derived once a day and kept: a signer that signed on another day in between signs as a
    /// new one does.
    @Test func theKeptKeyIsTheDays() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1")
        let sign = { (s: SigV4Signer, date: Date) in
            self.authorization(
                s.sign(method: "GET", path: "/", query: [], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash, date: date))
        }
        let may25 = Self.may24.addingTimeInterval(86_400)
        let first = sign(signer, Self.may24)
        #expect(sign(signer, may25) == sign(SigV4Signer(credentials: Self.credentials, region: "us-east-1"), may25))
        #expect(sign(signer, Self.may24) == first)
        #expect(sign(signer, may25) != first)
    }

    @Test func timestampsAreUTC() {
        #expect(SigV4Signer.timestamp(Self.may24) == "20130524T000000Z")
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 1_709_251_199.9)) == "20240229T235959Z")
    }
}
