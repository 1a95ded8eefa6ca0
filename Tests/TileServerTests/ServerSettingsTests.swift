import Testing

@testable import TileServer

/// Settings declared once: the configuration's defaults are theirs, a configuration is checked against them, and the
/// errors name the setting (not a command-line flag).
@Suite struct ServerSettingsTests {
    @Test func defaultsComeFromTheDeclarations() {
        let configuration = ServerConfiguration(root: "/")
        #expect(configuration.problems().isEmpty)
        #expect(ServerSettings.port.value(in: configuration) == ServerSettings.port.defaultValue)
        #expect(ServerSettings.cacheMB.value(in: configuration) == ServerSettings.cacheMB.defaultValue)
        #expect(ServerSettings.headTimeout.value(in: configuration) == ServerSettings.headTimeout.defaultValue)
        #expect(IIIFSettings.renderMB.value(in: configuration) == IIIFSettings.renderMB.defaultValue)
        #expect(ServerSettings.corsOrigin.value(in: configuration) == [])
    }

    @Test func problemsNameTheSetting() {
        var configuration = ServerConfiguration(root: "/")
        ServerSettings.port.apply(-1, to: &configuration)
        ServerSettings.headTimeout.apply(0, to: &configuration)
        IIIFSettings.publicURL.apply("ftp://x", to: &configuration)
        ServerSettings.corsOrigin.apply(["*", "https://a.example"], to: &configuration)
        let problems = configuration.problems()
        #expect(problems.contains("port must be 0…65535 (got -1)"))
        #expect(problems.contains("head-timeout must be more than 0 and at most 3600 seconds (got 0.0)"))
        #expect(problems.contains { $0.hasPrefix("public-url must be http:// or https://") })
        #expect(problems.contains { $0.hasPrefix("cors-origin must be * alone, or origins") })
        #expect(!problems.contains { $0.contains("--") }, "the library names settings, not flags")
    }

    @Test func everySettingHasOneNameAndVariable() {
        let names = ServerSettings.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(ServerSettings.all.first { $0.name == "max-connections-per-address" }?.variable == "TILER_MAX_CONNECTIONS_PER_ADDRESS")
        #expect(ServerSettings.all.filter { $0.kind == .flag }.map(\.name).sorted() == ["access-log", "h2c", "trust-proxy"])
    }
}
