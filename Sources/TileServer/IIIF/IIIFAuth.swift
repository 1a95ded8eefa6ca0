import JSONText
import TileGeometry

/// The IIIF Authorization Flow API 2.0 documents of a private image: the services its `info.json` lists (a probe
/// service, an access service of the `external` pattern, its access token service), the probe's result and the
/// token service's answer. The access tokens are Tiler's own (``AccessToken``): the token service hands a client the
/// token it already holds (its `tiler_token` cookie or bearer), so the site's login stays the site's.
enum IIIFAuth {
    /// The JSON-LD context of the Authorization Flow API 2.0.
    static let context = "http://iiif.io/api/auth/2/context.json"

    /// Writes, as one element of the `service` array of a private image's `info.json`, the probe at `imageID/probe`
    /// with the external access service and the token service under `base` (the service's base URL) inside it.
    static func writeProbeService(into writer: inout JSONWriter, imageID: String, base: String) {
        writer.openObject()
        writer.member("@context", context)
        writer.member("id", imageID + "/probe")
        writer.member("type", "AuthProbeService2")
        writer.key("service")
        writer.openArray()
        writer.openObject()
        writer.member("type", "AuthAccessService2")
        writer.member("profile", "external")
        writeLabel("label", "Access for signed-in users", into: &writer)
        writer.key("service")
        writer.openArray()
        writer.openObject()
        writer.member("id", base + "\(IIIFRoute.tokenServicePath)")
        writer.member("type", "AuthAccessTokenService2")
        writer.closeObject()
        writer.closeArray()
        writer.closeObject()
        writer.closeArray()
        writer.closeObject()
    }

    /// What a private image's `info.json` answers a request without a valid token: its id and the services, nothing
    /// about the image (the same for a name no image has).
    static func servicesOnly(imageID: String, base: String) -> String {
        JSONWriter.text { writer in
            writer.openObject()
            writer.member("@context", IIIFInfo.context)
            writer.member("id", imageID)
            writer.member("type", "ImageService3")
            writer.member("protocol", "http://iiif.io/api/image")
            writer.member("profile", "level2")
            writer.key("service")
            writer.openArray()
            writeProbeService(into: &writer, imageID: imageID, base: base)
            writer.closeArray()
            writer.closeObject()
        }
    }

    /// The probe's answer: `AuthProbeResult2` with `status` (200 or the refusal's), and for a refusal a heading.
    static func probeResult(status: Int) -> String {
        JSONWriter.text { writer in
            writer.openObject()
            writer.member("@context", context)
            writer.member("type", "AuthProbeResult2")
            writer.member("status", status)
            if status != 200 {
                writeLabel("heading", "Sign in to see this image", into: &writer)
                writeLabel("note", "This image is private: it needs an access token.", into: &writer)
            }
            writer.closeObject()
        }
    }

    /// The token service's JSON: the token and its remaining lifetime in seconds, or an `AuthAccessTokenError2` with
    /// `profile` (`missingAspect`, `invalidAspect`, `expiredAspect`).
    static func tokenResult(token: String?, expiresIn: Int, errorProfile: String, messageID: String?) -> String {
        JSONWriter.text { writer in
            writer.openObject()
            writer.member("@context", context)
            if let token {
                writer.member("type", "AuthAccessToken2")
                writer.member("accessToken", token)
                writer.member("expiresIn", expiresIn)
            } else {
                writer.member("type", "AuthAccessTokenError2")
                writer.member("profile", errorProfile)
            }
            if let messageID { writer.member("messageId", messageID) }
            writer.closeObject()
        }
    }

    private static func writeLabel(_ name: String, _ text: String, into writer: inout JSONWriter) {
        writer.key(name)
        writer.openObject()
        writer.key("en")
        writer.openArray()
        writer.value(text)
        writer.closeArray()
        writer.closeObject()
    }
}
