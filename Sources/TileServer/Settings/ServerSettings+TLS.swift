extension ServerSettings {
    /// The certificate chain of HTTPS on the main port.
    public static let tlsCert = ServerSetting<String?>(
        "tls-cert",
        "A PEM certificate chain (the server's certificate first): the port speaks HTTPS only (TLS 1.2 and 1.3). Needs --tls-key; SIGHUP reads both again.",
        default: nil, valid: { $0.map { !$0.isEmpty } ?? true }, read: { $0.tlsCertificate }, write: { $0.tlsCertificate = $1 })
    /// The private key of ``tlsCert``'s certificate.
    public static let tlsKey = ServerSetting<String?>(
        "tls-key", "The PEM private key (unencrypted) of --tls-cert's certificate.", default: nil, valid: { $0.map { !$0.isEmpty } ?? true },
        read: { $0.tlsKey }, write: { $0.tlsKey = $1 })
    /// `Strict-Transport-Security`'s max-age, with TLS.
    public static let hsts = ServerSetting<Int?>(
        "hsts", "With TLS, every answer says Strict-Transport-Security: max-age=SECONDS (31536000: a year): browsers then ask only https.",
        default: nil, accepts: "0…63072000", valid: { $0.map { (0...63_072_000).contains($0) } ?? true }, read: { $0.hstsMaxAge },
        write: { $0.hstsMaxAge = $1 })
    /// A port redirecting plain HTTP to HTTPS.
    public static let redirectHTTP = ServerSetting<Int?>(
        "redirect-http", "With TLS, a second port (80 in production; 0 picks one) answering every plain-HTTP request with 308 to its https:// URL.",
        default: nil, accepts: "0…65535", valid: { $0.map { (0...65535).contains($0) } ?? true }, read: { $0.redirectHTTPPort },
        write: { $0.redirectHTTPPort = $1 })

    /// Cleartext HTTP/2 with prior knowledge on a plain port.
    public static let h2c = ServerSetting<Bool>(
        "h2c",
        "Without TLS, also speak cleartext HTTP/2 to clients that open with its preface (prior knowledge: a proxy speaking HTTP/2 to its back ends).",
        default: false, kind: .flag, read: { $0.cleartextHTTP2 }, write: { $0.cleartextHTTP2 = $1 })

    /// The TLS and HTTP/2 settings, in `--help` order.
    static let tls: [AnyServerSetting] = [tlsCert.erased, tlsKey.erased, hsts.erased, redirectHTTP.erased, h2c.erased]
}

extension ServerConfiguration {
    /// Whether the main port speaks HTTPS (``tlsCertificate`` and ``tlsKey`` given).
    public var usesTLS: Bool {
        tlsCertificate != nil && tlsKey != nil
    }

    /// What is wrong with the TLS settings taken together, one line each naming the settings.
    func tlsProblems() -> [String] {
        var problems: [String] = []
        if (tlsCertificate == nil) != (tlsKey == nil) {
            problems.append(tlsCertificate == nil ? "tls-key needs tls-cert, its certificate chain" : "tls-cert needs tls-key, its private key")
        }
        if !usesTLS {
            if hstsMaxAge != nil { problems.append("hsts needs tls-cert and tls-key (it is sent over HTTPS only)") }
            if redirectHTTPPort != nil { problems.append("redirect-http needs tls-cert and tls-key (it redirects to HTTPS)") }
        } else if cleartextHTTP2 {
            problems.append("h2c is for a plain port: with tls-cert and tls-key, HTTP/2 is negotiated in the handshake")
        }
        return problems
    }
}
