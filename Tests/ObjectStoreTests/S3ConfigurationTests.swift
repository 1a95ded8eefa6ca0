import Foundation
import TestSupport
import Testing

@testable import ObjectStore

@Suite struct S3ConfigurationTests {
    let location = S3Location(bucket: "tiles", prefix: "slides")

    @Test func keysRegionAndEndpointComeFromTheEnvironment() throws {
        let configuration = try S3Configuration.fromEnvironment(
            location,
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "tok", "AWS_REGION": "eu-central-1",
                "AWS_DEFAULT_REGION": "us-west-2", "AWS_ENDPOINT_URL": "http://127.0.0.1:7480", "HOME": "/nonexistent",
            ])
        #expect(
            configuration.credentials
                == S3Credentials(accessKeyID: "AKIDENV", secretAccessKey: "env-secret", sessionToken: "tok", source: "environment"))
        #expect(configuration.region == "eu-central-1")
        #expect(configuration.endpoint.origin == "http://127.0.0.1:7480" && configuration.hasCustomEndpoint)
        #expect(configuration.usesPathStyle && configuration.requestHost == "127.0.0.1:7480")
        #expect(configuration.requestPath(fullKey: "slides/a b.szi") == "/tiles/slides/a%20b.szi")
    }

    @Test func theS3EndpointWinsOverTheGeneralOne() throws {
        let configuration = try S3Configuration.fromEnvironment(
            location, environment: ["AWS_ENDPOINT_URL": "http://general:1", "AWS_ENDPOINT_URL_S3": "https://s3.example.org", "HOME": "/nonexistent"])
        #expect(configuration.endpoint.origin == "https://s3.example.org")
        #expect(configuration.credentials == nil && configuration.region == "us-east-1")
    }

    @Test func awsItselfIsVirtualHostedUnlessTheBucketNeedsPaths() throws {
        let aws = try S3Configuration.fromEnvironment(location, environment: ["AWS_DEFAULT_REGION": "us-west-2", "HOME": "/nonexistent"])
        #expect(aws.endpoint.origin == "https://s3.us-west-2.amazonaws.com" && aws.region == "us-west-2")
        #expect(!aws.usesPathStyle && aws.requestHost == "tiles.s3.us-west-2.amazonaws.com")
        #expect(aws.requestPath(fullKey: "slides/x") == "/slides/x")
        let dotted = try S3Configuration.fromEnvironment(S3Location(bucket: "my.tiles"), environment: ["HOME": "/nonexistent"])
        #expect(dotted.usesPathStyle && dotted.requestHost == "s3.us-east-1.amazonaws.com")
        let forced = try S3Configuration.fromEnvironment(
            location, environment: ["AWS_ENDPOINT_URL": "http://minio:9000", "HOME": "/nonexistent"], addressingStyle: .virtualHosted)
        #expect(!forced.usesPathStyle && forced.requestHost == "tiles.minio:9000")
    }

    @Test func profilesComeFromTheSharedFiles() throws {
        let folder = try TemporaryDirectory(prefix: "aws")
        try
            "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default-secret\n\n[dev]\n# a comment\naws_access_key_id=AKIDDEV\naws_secret_access_key=dev-secret\n"
            .write(toFile: folder.file("credentials"), atomically: true, encoding: .utf8)
        try
            "[default]\nregion = ap-south-1\n[profile dev]\nregion = eu-north-1\nca_bundle = /etc/dev-ca.pem\ns3 =\n  addressing_style = path\n  endpoint_url = http://ceph:7480\n"
            .write(toFile: folder.file("config"), atomically: true, encoding: .utf8)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": folder.file("credentials"), "AWS_CONFIG_FILE": folder.file("config")]
        let byDefault = try S3Configuration.fromEnvironment(location, environment: files)
        #expect(byDefault.credentials?.accessKeyID == "AKIDDEFAULT" && byDefault.credentials?.secretAccessKey == "default-secret")
        #expect(byDefault.region == "ap-south-1" && !byDefault.usesPathStyle)
        let dev = try S3Configuration.fromEnvironment(location, environment: files.merging(["AWS_PROFILE": "dev"]) { $1 })
        #expect(dev.credentials?.accessKeyID == "AKIDDEV" && dev.credentials?.source == "profile dev in \(folder.file("credentials"))")
        #expect(dev.region == "eu-north-1" && dev.endpoint.origin == "http://ceph:7480" && dev.addressingStyle == .path)
        #expect(byDefault.caBundle == nil && dev.caBundle == "/etc/dev-ca.pem")
        let environmentFirst = try S3Configuration.fromEnvironment(
            location,
            environment: files.merging(["AWS_PROFILE": "dev", "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "r"]) { $1 }
        )
        #expect(environmentFirst.credentials?.accessKeyID == "AKIDENV" && environmentFirst.region == "r")
        let bundle = try S3Configuration.fromEnvironment(
            location, environment: files.merging(["AWS_PROFILE": "dev", "AWS_CA_BUNDLE": "/ca.pem"]) { $1 })
        #expect(bundle.caBundle == "/ca.pem")
        // HOME/.aws is where the files are looked for when no variable names them.
        try FileManager.default.createDirectory(atPath: folder.file(".aws"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder.file("credentials"), toPath: folder.file(".aws/credentials"))
        #expect(try S3Configuration.fromEnvironment(location, environment: ["HOME": folder.path]).credentials?.accessKeyID == "AKIDDEFAULT")
    }

    @Test func inconsistentSettingsAreOneClearLineWithoutTheSecret() throws {
        let half = #expect(throws: S3ConfigurationError.self) {
            try S3Configuration.fromEnvironment(self.location, environment: ["AWS_SECRET_ACCESS_KEY": "do-not-print-me", "HOME": "/nonexistent"])
        }
        #expect(half?.description.contains("must be set together") == true && half?.description.contains("do-not-print-me") == false)
        let missing = #expect(throws: S3ConfigurationError.self) {
            try S3Configuration.fromEnvironment(self.location, environment: ["AWS_PROFILE": "nope", "HOME": "/nonexistent"])
        }
        #expect(missing?.description.contains("AWS_PROFILE 'nope'") == true)
        #expect(throws: S3ConfigurationError.self) {
            try S3Configuration.fromEnvironment(self.location, environment: ["AWS_ENDPOINT_URL": "ftp://x", "HOME": "/nonexistent"])
        }
    }

    @Test func credentialsNeverShowTheirSecretOrToken() throws {
        let credentials = S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN",
            source: "environment")
        let configuration = try S3Configuration(location: location, endpoint: "http://127.0.0.1:1", credentials: credentials)
        for text in ["\(credentials)", String(reflecting: credentials), "\(configuration)", String(describing: [credentials])] {
            #expect(!text.contains("wJalrXUtnFEMI") && !text.contains("FQoGZXIv") && !text.contains("AKIAIOSFODNN7EXAMPLE"), "\(text)")
        }
        #expect("\(credentials)" == "S3Credentials(AKIA…, from environment, with a session token)")
    }
}
