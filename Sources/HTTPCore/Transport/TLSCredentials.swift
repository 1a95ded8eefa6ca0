import Glibc
import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate chain and private key, read from PEM files into the TLS context that each new
/// connection's handshake uses. ``reload()`` reads the files again and swaps the context (what `tiler serve` does on
/// SIGHUP): connections already open keep the one they began with, so a renewed certificate drops none of them; a
/// reload that fails keeps the context in use.
///
/// TLS 1.2 and 1.3 only; in TLS 1.2 only suites with forward secrecy and authenticated encryption (ECDHE with
/// AES-GCM or ChaCha20-Poly1305), as TLS 1.3's are. BoringSSL checks that the key is the certificate's.
/// Thread-safe.
package final class TLSCredentials: Sendable {
    /// The TLS 1.2 suites offered, in OpenSSL's cipher-list syntax (TLS 1.3's are fixed by BoringSSL, all AEAD).
    package static let tls12Suites = "ECDHE+AESGCM:ECDHE+CHACHA20"

    /// The PEM file of the certificate chain: the server's certificate first, then any intermediates.
    package let certificatePath: String
    /// The PEM file of the private key (unencrypted).
    package let keyPath: String
    /// The ALPN protocols offered, most preferred first.
    package let applicationProtocols: [String]
    private let loaded: Mutex<Loaded>

    /// What one reading of the files gave.
    package struct Loaded: Sendable {
        /// The context new connections use.
        package let context: NIOSSLContext
        /// One line for the log: the certificate's name and until when it is valid, and a warning if it is not.
        package let summary: String
    }

    /// Reads `certificatePath` and `keyPath` once.
    ///
    /// - Throws: ``TLSCredentialsError`` naming the file and the problem: unreadable, no PEM certificate or key in it, a
    ///   key that is not the certificate's.
    package init(certificatePath: String, keyPath: String, applicationProtocols: [String] = ["h2", "http/1.1"]) throws(TLSCredentialsError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.applicationProtocols = applicationProtocols
        self.loaded = Mutex(try Self.load(certificatePath: certificatePath, keyPath: keyPath, applicationProtocols: applicationProtocols))
    }

    /// The context a connection accepted now negotiates with.
    package var context: NIOSSLContext {
        loaded.withLock { $0.context }
    }

    /// The current certificate's summary line.
    package var summary: String {
        loaded.withLock { $0.summary }
    }

    /// Reads the files again; on success new connections use what they hold. Blocking (file reads).
    ///
    /// - Returns: the new certificate's summary, or why the files were not taken (the old context stays).
    package func reload() -> Result<String, TLSCredentialsError> {
        do {
            let fresh = try Self.load(certificatePath: certificatePath, keyPath: keyPath, applicationProtocols: applicationProtocols)
            loaded.withLock { $0 = fresh }
            return .success(fresh.summary)
        } catch {
            return .failure(error)
        }
    }

    /// One reading of the files into a server context.
    private static func load(certificatePath: String, keyPath: String, applicationProtocols: [String]) throws(TLSCredentialsError) -> Loaded {
        try readable(certificatePath, what: "certificate chain")
        try readable(keyPath, what: "private key")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw TLSCredentialsError("\(certificatePath) holds no PEM certificate (\(error))")
        }
        guard let leaf = chain.first else { throw TLSCredentialsError("\(certificatePath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw TLSCredentialsError("\(keyPath) holds no unencrypted PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        configuration.cipherSuites = tls12Suites
        configuration.applicationProtocols = applicationProtocols
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSCredentialsError("the private key in \(keyPath) is not the key of the certificate in \(certificatePath) (\(error))")
        }
        return Loaded(context: context, summary: summary(of: leaf, now: WallClock.seconds()))
    }

    /// `certificate for localhost (serial 1a2b), valid until Tue, 07 Dec 2027 10:00:00 GMT`, with a warning when it is not
    /// valid at `now` (Unix seconds).
    static func summary(of certificate: NIOSSLCertificate, now: Int) -> String {
        let name = certificate.subjectName.first { $0.type == .commonName }?.value ?? "no common name"
        let serial = certificate.serialNumber.map { String($0, radix: 16) }.joined()
        var text = "certificate for \(name) (serial \(serial)), valid until \(DateHeader.format(certificate.notValidAfter))"
        if certificate.notValidAfter < now {
            text += " — EXPIRED: clients will refuse it"
        } else if certificate.notValidBefore > now {
            text += " — NOT YET VALID (from \(DateHeader.format(certificate.notValidBefore))): clients will refuse it"
        }
        return text
    }

    private static func readable(_ path: String, what: String) throws(TLSCredentialsError) {
        guard let file = fopen(path, "r") else {
            throw TLSCredentialsError("cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
        }
        fclose(file)
    }
}

/// Why a certificate chain or key was not taken: one line naming the file.
package struct TLSCredentialsError: Error, CustomStringConvertible, Sendable {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
