import Glibc
import HTTPCore
import TileSources

extension Router {
    /// The access step: the one place that decides whether a routed request (Deep Zoom or IIIF) may be answered under the server's
    /// ``AccessPolicy``. Every route goes through it before its handler; handlers only shape their answer by the
    /// grant (signed tile URLs, `Cache-Control`, the filtered image list).
    ///
    /// A name under a private prefix needs a credential whether or not an image has that name, so a refusal says
    /// nothing about what exists. An image is private when its name, or the real path of its descriptor or of its
    /// tiles folder (a symlink's target), is under a private prefix.
    ///
    /// Routes say what they touch (``AccessSubject``, from ``Route/accessSubject`` and ``IIIFRoute/accessSubject``).
    ///
    /// - Complexity: O(1) without a policy; else a catalog lookup, and one HMAC-SHA256 where a credential is checked.
    func authorize(_ subject: AccessSubject, query rawQuery: Substring, exchange: Exchange) -> Result<AccessGrant, AccessRefusal> {
        guard let policy = services.access else { return .success(.open) }
        let now = WallClock.seconds()
        switch subject {
        case .open:
            return .success(.open)
        case .pixels(let name):
            // A signed URL this connection verified before (the usual case: a viewer's tiles share one query).
            let catalogVersion = catalog.currentVersion
            if !rawQuery.isEmpty, let expires = memo.signedExpiry(name: name, query: rawQuery, catalogVersion: catalogVersion), expires > now {
                return .success(.signed(expires: expires))
            }
            guard isPrivate(name, policy: policy) else { return .success(.open) }
            let query = QueryString(text: rawQuery)
            if query.value(named: "sig") != nil {
                // Every other spelling of a signed URL would be a cache key of its own: one signature, nothing else.
                guard Self.isSignatureAlone(rawQuery) else { return .failure(.extraQuery) }
                let (base, version) = Self.split(name)
                // A URL without a version (IIIF's, an unversioned tile) is signed for the image's current version.
                let signedVersion = version ?? catalog.image(named: base).map { $0.version[...] } ?? ""
                return Result { () throws(AccessRefusal) in
                    let expires = try policy.verifyTile(query: query, name: base, version: signedVersion, now: now)
                    memo.rememberSigned(name: name, query: rawQuery, catalogVersion: catalogVersion, expires: expires)
                    return .signed(expires: expires)
                }
            }
            return tokenGrant(for: name, credential: Self.credential(query: query, exchange: exchange), policy: policy, now: now)
        case .metadata(let name):
            let credential = Self.credential(query: QueryString(text: rawQuery), exchange: exchange)
            // A grant this connection made before for this name and credential, the catalog unchanged since (a viewer's
            // visible-rect queries): the same answer without the catalog lookups and prefix matches.
            let catalogVersion = catalog.currentVersion
            if let credential, let known = memo.grant(name: name, credential: credential, catalogVersion: catalogVersion), known.expires > now {
                return .success(.token(known))
            }
            guard isPrivate(name, policy: policy) else { return .success(.open) }
            let grant = tokenGrant(for: name, credential: credential, policy: policy, now: now)
            if let credential, case .success(.token(let token)) = grant {
                memo.rememberGrant(name: name, credential: credential, catalogVersion: catalogVersion, token: token)
            }
            return grant
        case .list:
            guard let credential = Self.credential(query: QueryString(text: rawQuery), exchange: exchange) else { return .success(.list(nil)) }
            // The public images are listed to anyone: a credential that fails only adds its refusal to that answer.
            do throws(AccessRefusal) {
                let token = try verifiedToken(credential, policy: policy, now: now)
                guard token.scope == .read else { throw .wrongScope }
                return .success(.list(token))
            } catch {
                return .success(.listRefused(error))
            }
        }
    }

    /// The token `credential` says, verified (or found verified in the memo) and unexpired at `now`.
    private func verifiedToken(_ credential: Substring, policy: AccessPolicy, now: Int) throws(AccessRefusal) -> AccessToken {
        if let known = memo.token(credential) {
            guard known.expires > now else { throw .expired }
            return known
        }
        let token = try policy.verify(token: credential, now: now)
        memo.rememberToken(credential, token)
        return token
    }

    /// Whether image `name` (as in a URL, with or without `@version`) is private under `policy`.
    func isPrivate(_ name: Substring, policy: AccessPolicy) -> Bool {
        let (base, _) = Self.split(name)
        if policy.visibility(of: base) == .private || policy.visibility(of: name) == .private { return true }
        switch catalog.resolve(name) {
        case .current(let image, _), .stale(let image):
            return image.accessNames.contains { policy.visibility(of: $0) == .private }
        case .missing:
            return false
        }
    }

    /// The grant of the token `credential` presents for image `name`, or why there is none.
    private func tokenGrant(for name: Substring, credential: Substring?, policy: AccessPolicy, now: Int) -> Result<AccessGrant, AccessRefusal> {
        guard let credential else { return .failure(.missing) }
        return Result { () throws(AccessRefusal) in
            let token = try verifiedToken(credential, policy: policy, now: now)
            guard token.scope == .read else { throw .wrongScope }
            let (base, _) = Self.split(name)
            guard token.grants(base) else { throw .wrongImage }
            // A name that is an alias (a symlinked descriptor or tiles folder) is granted only if its real names are too.
            if case .current(let image, _) = catalog.resolve(name), !image.accessNames.allSatisfy({ token.grants($0) }) {
                throw .wrongImage
            }
            return .token(token)
        }
    }

    /// The token a request presents: `Authorization: Bearer TOKEN`, else `?token=TOKEN`, else (IIIF requests) the
    /// `tiler_token` cookie.
    ///
    /// `query` is only parsed when there is no `Authorization` header.
    static func credential(query: @autoclosure () -> QueryString, exchange: Exchange) -> Substring? {
        if let header = exchange.authorization {
            guard isBearer(header) else { return header[header.endIndex...] }
            let utf8 = header.utf8
            var start = utf8.index(utf8.startIndex, offsetBy: 7)
            while start < utf8.endIndex, utf8[start] == UInt8(ascii: " ") { start = utf8.index(after: start) }
            return header[start...]
        }
        return query().value(named: "token") ?? exchange.cookieToken
    }

    /// The scheme of `Authorization: Bearer`, lowercase, and the space after it.
    private static let bearerScheme = Array("bearer ".utf8)

    /// Whether an `Authorization` value starts with the scheme `Bearer` and a space, in any case (compared byte by
    /// byte: this runs on every private visible-rect query).
    private static func isBearer(_ header: String) -> Bool {
        let utf8 = header.utf8
        guard utf8.count > 7 else { return false }
        var index = utf8.startIndex
        for expected in bearerScheme {
            // A letter's two cases differ in bit 0x20 only.
            let byte = utf8[index]
            guard byte == expected || (expected != UInt8(ascii: " ") && byte | 0x20 == expected) else { return false }
            index = utf8.index(after: index)
        }
        return true
    }

    /// Whether `query` is one `sig=VALUE` pair and nothing else (no other pair, no second `sig`, no empty pair).
    static func isSignatureAlone(_ query: Substring) -> Bool {
        query.utf8.starts(with: "sig=".utf8) && !query.utf8.contains(UInt8(ascii: "&"))
    }

    /// A URL's image name split into the name and the `@VERSION` it names, if any.
    static func split(_ name: Substring) -> (base: Substring, version: Substring?) {
        let utf8 = name.utf8
        guard utf8.count > PyramidVersion.length + 1 else { return (name, nil) }
        let at = utf8.index(utf8.endIndex, offsetBy: -(PyramidVersion.length + 1))
        guard utf8[at] == UInt8(ascii: "@"), case let version = name[utf8.index(after: at)...], PyramidVersion.isVersion(version) else {
            return (name, nil)
        }
        return (name[..<at], version)
    }
}
