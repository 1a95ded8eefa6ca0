import Testing

@testable import tiler

/// `TILER_*` variables turned into options, without a process.
@Suite struct EnvironmentDefaultsTests {
    static func apply(_ arguments: [String], _ environment: [String: String]) -> [String] {
        EnvironmentDefaults.apply(to: arguments, environment: environment)
    }

    @Test func variablesFillInOptionsTheCommandLineLeavesOut() {
        let result = Self.apply(
            ["serve", "--port=9000", "--host", "0.0.0.0"],
            [
                "TILER_PORT": "1", "TILER_HOST": "10.0.0.1", "TILER_CACHE_MB": "512", "TILER_TRUST_PROXY": "yes", "TILER_ACCESS_LOG": "0",
                "TILER_CORS_ORIGIN": "https://a.example, https://b.example", "TILER_ROOT": "/data",
            ])
        #expect(
            result == [
                "serve", "--cache-mb", "512", "--trust-proxy", "--cors-origin", "https://a.example", "--cors-origin", "https://b.example",
                "--port=9000", "--host", "0.0.0.0", "--", "/data",
            ])
    }

    @Test func aGivenRootOrHelpIsLeftAlone() {
        #expect(Self.apply(["serve", "/srv", "--port", "1"], ["TILER_ROOT": "/data"]) == ["serve", "/srv", "--port", "1"])
        #expect(Self.apply(["serve", "--help"], ["TILER_PORT": "1"]) == ["serve", "--help"])
        #expect(Self.apply(["slice", "a.jpg"], ["TILER_PORT": "1"]) == ["slice", "a.jpg"])
        #expect(Self.apply([], ["TILER_PORT": "1"]) == [])
    }

    @Test func theVariableNameFollowsTheOption() {
        #expect(EnvironmentDefaults.Option(name: "iiif-max-width", kind: .value).variable == "TILER_IIIF_MAX_WIDTH")
    }
}
