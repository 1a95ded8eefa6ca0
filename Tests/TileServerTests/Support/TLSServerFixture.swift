import TestSupport
import TileServer

/// What the TLS and HTTP/2 tests start from: a pyramid `big` (2048×1024, 20,000-byte tiles), an authority `ca` and a
/// certificate `server` it signed for localhost and 127.0.0.1, and a configuration serving the pyramid over TLS with
/// `cacheBytes` of tile cache and a two-minute idle timeout.
func tlsServerFixtures(cacheBytes: Int = 8 << 20) throws -> (PyramidFixture, TLSFixture, ServerConfiguration) {
    let pyramids = try PyramidFixture()
    try pyramids.addPyramid("big", width: 2048, height: 1024, tileBytes: 20_000)
    let tls = try TLSFixture()
    try tls.makeAuthority("ca")
    try tls.makeCertificate("server", authority: "ca")
    var configuration = testConfiguration(root: pyramids.root)
    configuration.tlsCertificate = tls.file("server")
    configuration.tlsKey = tls.file("server", key: true)
    configuration.cacheBytes = cacheBytes
    // Tests that keep a connection open across steps (a reload, a shutdown) must not see it closed as idle when a
    // loaded machine stalls them for the default half minute.
    configuration.idleTimeout = .seconds(120)
    return (pyramids, tls, configuration)
}
