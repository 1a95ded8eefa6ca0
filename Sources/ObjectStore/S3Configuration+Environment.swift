import Foundation

extension S3Configuration {
    /// A configuration by the AWS tools' conventions, read from `environment` (pass `ProcessInfo.processInfo.environment`)
    /// and the shared files it points to.
    ///
    /// - Credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`); otherwise the profile
    ///   `AWS_PROFILE` (or `default`) of the credentials file (`AWS_SHARED_CREDENTIALS_FILE`, or `~/.aws/credentials`),
    ///   then of the config file (`AWS_CONFIG_FILE`, or `~/.aws/config`); otherwise none (unsigned requests).
    /// - Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, then `us-east-1`.
    /// - Endpoint: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `s3.endpoint_url` or `endpoint_url`, then AWS.
    /// - Certificate authorities: `AWS_CA_BUNDLE`, the profile's `ca_bundle`, then the system's.
    /// - Addressing: `addressingStyle` if given, else the profile's `s3.addressing_style` (`path`, `virtual`, `auto`),
    ///   else automatic (path-style with a custom endpoint or a bucket name with dots).
    ///
    /// - Throws: ``S3ConfigurationError`` for half a key pair, an `AWS_PROFILE` found in neither file, a bad endpoint
    ///   or addressing style.
    public static func fromEnvironment(
        _ location: S3Location, environment: [String: String], addressingStyle: AddressingStyle? = nil
    ) throws -> S3Configuration {
        let files = SharedFiles(environment: environment)
        let explicitProfile = nonEmpty(environment["AWS_PROFILE"])
        let profileName = explicitProfile ?? "default"
        let fromCredentials = files.credentials?.credentialsProfile(profileName)
        let fromConfig = files.config?.configProfile(profileName)
        if let explicitProfile, fromCredentials == nil, fromConfig == nil {
            throw S3ConfigurationError(message: "AWS_PROFILE '\(explicitProfile)' is in neither \(files.credentialsPath) nor \(files.configPath)")
        }
        let config = fromConfig ?? [:]
        let credentials = try resolveCredentials(
            environment: environment, profile: profileName, fromCredentials: fromCredentials, fromConfig: fromConfig, files: files)
        let region =
            nonEmpty(environment["AWS_REGION"]) ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) ?? nonEmpty(config["region"]) ?? "us-east-1"
        let endpoint =
            nonEmpty(environment["AWS_ENDPOINT_URL_S3"]) ?? nonEmpty(environment["AWS_ENDPOINT_URL"])
            ?? nonEmpty(config["s3.endpoint_url"]) ?? nonEmpty(config["endpoint_url"])
        var style = addressingStyle ?? .automatic
        if addressingStyle == nil, let written = nonEmpty(config["s3.addressing_style"]) {
            guard let parsed = written == "auto" ? .automatic : AddressingStyle(rawValue: written) else {
                throw S3ConfigurationError(message: "s3.addressing_style '\(written)' of profile \(profileName) is not path, virtual or auto")
            }
            style = parsed
        }
        do {
            var configuration = try S3Configuration(
                location: location, endpoint: endpoint, region: region, addressingStyle: style, credentials: credentials)
            configuration.caBundle = nonEmpty(environment["AWS_CA_BUNDLE"]) ?? nonEmpty(config["ca_bundle"])
            return configuration
        } catch let error as ObjectStoreRootError {
            throw S3ConfigurationError(message: "endpoint \(error)")
        }
    }

    private static func resolveCredentials(
        environment: [String: String], profile: String, fromCredentials: [String: String]?, fromConfig: [String: String]?,
        files: SharedFiles
    ) throws -> S3Credentials? {
        let key = nonEmpty(environment["AWS_ACCESS_KEY_ID"])
        let secret = nonEmpty(environment["AWS_SECRET_ACCESS_KEY"])
        switch (key, secret) {
        case (let key?, let secret?):
            return S3Credentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: nonEmpty(environment["AWS_SESSION_TOKEN"]), source: "environment")
        case (nil, nil):
            break
        default:
            throw S3ConfigurationError(message: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
        }
        for (settings, path) in [(fromCredentials, files.credentialsPath), (fromConfig, files.configPath)] {
            guard let settings else { continue }
            let key = nonEmpty(settings["aws_access_key_id"])
            let secret = nonEmpty(settings["aws_secret_access_key"])
            if let key, let secret {
                return S3Credentials(
                    accessKeyID: key, secretAccessKey: secret, sessionToken: nonEmpty(settings["aws_session_token"]),
                    source: "profile \(profile) in \(path)")
            }
            if (key == nil) != (secret == nil) {
                throw S3ConfigurationError(message: "profile \(profile) in \(path) has only one of aws_access_key_id and aws_secret_access_key")
            }
        }
        return nil
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// The two shared files the environment points to, read once.
    private struct SharedFiles {
        let credentialsPath: String
        let configPath: String
        let credentials: AWSSharedConfigFile?
        let config: AWSSharedConfigFile?

        init(environment: [String: String]) {
            // Without HOME there is no ~/.aws to read: the paths below then name no file.
            let home = environment["HOME"] ?? "~"
            credentialsPath = nonEmpty(environment["AWS_SHARED_CREDENTIALS_FILE"]) ?? "\(home)/.aws/credentials"
            configPath = nonEmpty(environment["AWS_CONFIG_FILE"]) ?? "\(home)/.aws/config"
            credentials = AWSSharedConfigFile(contentsOf: credentialsPath)
            config = AWSSharedConfigFile(contentsOf: configPath)
        }
    }
}
