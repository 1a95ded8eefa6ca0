import Testing

@testable import tiler

/// `TILER_*` variables turned into options, without a process.
@Suite struct EnvironmentDefaultsTests {
    static func apply(_ arguments: [String], _ environment: [String: String]) -> [String] {
        (try? EnvironmentDefaults.apply(to: arguments, environment: environment).arguments) ?? ["failed"]
    }

    /// The message `environment` is refused with, or nil when it is taken.
    static func refusal(_ environment: [String: String], _ arguments: [String] = ["serve"]) -> String? {
        do {
            _ = try EnvironmentDefaults.apply(to: arguments, environment: environment)
            return nil
        } catch {
            return error.description
        }
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
                "serve", "--cache-mb=512", "--cors-origin=https://a.example", "--cors-origin=https://b.example", "--trust-proxy",
                "--port=9000", "--host", "0.0.0.0", "--", "/data",
            ])
        // A value that starts with `-` stays the option's value (the command then says what is wrong with it).
        #expect(Self.apply(["serve"], ["TILER_PORT": "-1"]) == ["serve", "--port=-1"])
    }

    @Test func flagsSayOnOrOffAndNothingElse() {
        for on in ["1", "true", "YES", "On", " on "] {
            #expect(Self.apply(["serve"], ["TILER_TRUST_PROXY": on]) == ["serve", "--trust-proxy"], "\(on)")
        }
        for off in ["0", "false", "No", "OFF"] {
            #expect(Self.apply(["serve"], ["TILER_TRUST_PROXY": off]) == ["serve"], "\(off)")
        }
        for word in ["maybe", "2", "-1", "enabled", "y"] {
            let message = Self.refusal(["TILER_TRUST_PROXY": word])
            #expect(message?.contains("TILER_TRUST_PROXY=\"\(word)\"") == true, "\(word): \(message ?? "taken")")
            #expect(message?.contains("1, true, yes or on") == true)
        }
    }

    @Test func aVariableThatIsSetMustSaySomething() {
        for variable in ["TILER_PORT", "TILER_ROOT", "TILER_CORS_ORIGIN", "TILER_TRUST_PROXY", "TILER_LOG_LEVEL"] {
            for value in ["", "  "] {
                let message = Self.refusal([variable: value])
                #expect(message?.hasPrefix("\(variable) is set but empty") == true, "\(variable)=\(value.debugDescription): \(message ?? "taken")")
            }
        }
        for value in [",,,", "https://a.example,,https://b.example", "https://a.example,", ", https://a.example"] {
            #expect(Self.refusal(["TILER_CORS_ORIGIN": value])?.contains("has an empty item") == true, "\(value)")
        }
        // A variable the command line overrides is not looked at.
        #expect(Self.refusal(["TILER_PORT": ""], ["serve", "--port", "1"]) == nil)
    }

    @Test func errorsAboutAnOptionNameTheVariableThatSetIt() {
        let sources = ["port": "TILER_PORT=\"-1\"", "public-url": "TILER_PUBLIC_URL=\"x\"", "root": "TILER_ROOT=\"/nope\""]
        #expect(
            EnvironmentDefaults.attributing("--port must be 0…65535 (got -1)", sources: sources)
                == "--port must be 0…65535 (got -1) (from TILER_PORT=\"-1\")")
        #expect(EnvironmentDefaults.attributing("ROOT /nope is not a folder", sources: sources).hasSuffix("(from TILER_ROOT=\"/nope\")"))
        #expect(EnvironmentDefaults.attributing("--public-url: bad", sources: ["public": "TILER_PUBLIC=\"p\""]) == "--public-url: bad")
        #expect(EnvironmentDefaults.attributing("--cache-mb must be 0…1048576", sources: sources) == "--cache-mb must be 0…1048576")
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
