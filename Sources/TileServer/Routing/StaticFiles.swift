import HTTPCore
import NIOPosix
import TileSources

/// The browser viewer's files, served from a `Public/` folder: only regular files whose real path stays inside it,
/// never dot-files, with their content type by extension and an `ETag` to revalidate against.
final class StaticFiles: Sendable {
    /// The folder's real path.
    let root: String
    private let threadPool: NIOThreadPool
    private let maxBytes: Int
    private let profiles: [String: ResponseProfile]
    private let fallbackProfile: ResponseProfile

    /// Serves the folder at real path `root`, reading on `threadPool` files of at most `maxBytes`; its answers follow
    /// `cors` (an embedding page loads the viewer's modules in CORS mode).
    init(root: String, threadPool: NIOThreadPool, maxBytes: Int, cors: CORSPolicy) {
        self.root = root
        self.threadPool = threadPool
        self.maxBytes = maxBytes
        let extensions = [
            "html", "htm", "js", "mjs", "css", "json", "map", "svg", "png", "jpg", "jpeg", "webp", "gif", "ico", "txt", "wasm", "woff2",
        ]
        profiles = Dictionary(
            uniqueKeysWithValues: extensions.map {
                (
                    $0,
                    ResponseProfile(contentType: MIMEType.forExtension($0), cacheControl: ResponseProfile.revalidate, cors: cors, acceptsRanges: true)
                )
            })
        fallbackProfile = ResponseProfile(
            contentType: "application/octet-stream", cacheControl: ResponseProfile.revalidate, cors: cors, acceptsRanges: true)
    }

    /// The file a decoded request path names (`/` and paths ending in `/` mean their `index.html`) and how to answer
    /// it.
    ///
    /// - Throws: 404 for paths with a segment starting with `.` (hidden files are never served).
    func resolve(_ path: Substring) throws(RequestError) -> (path: String, profile: ResponseProfile) {
        if path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            throw .notFound("no such file")
        }
        let relative = path.hasSuffix("/") ? path + "index.html" : String(path)
        let profile = profiles[MIMEType.fileExtension(of: relative).lowercased()] ?? fallbackProfile
        return (root + relative, profile)
    }

    /// Reads `path` (from ``resolve(_:)``) on the thread pool and calls `onResult` there.
    func load(_ path: String, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) {
        threadPool.submit { [root, maxBytes] state in
            guard case .active = state else { return onResult(.failure(CancellationError())) }
            do {
                onResult(.success(try FileLoader.load(path, inside: root, maxBytes: maxBytes)))
            } catch {
                onResult(.failure(error))
            }
        }
    }

    /// The viewer folder to use: `explicit` if given, else the first with an `index.html` of: `Public/` beside the
    /// executable (as the Docker image installs it), `share/tiler/Public/` beside the executable's `bin/` (an
    /// installed prefix: `/usr/local/bin/tiler` and `/usr/local/share/tiler/Public`), the `Public/` of the checkout the
    /// executable was built in (`.build/…/release/tiler` up to four folders below it), `Public/` in the working
    /// directory; as a real path, or `nil` when there is none.
    static func locate(explicit: String?) -> String? {
        if let explicit {
            guard let path = PathContainment.realPath(explicit), FileSignature.isDirectory(path) else { return nil }
            return path
        }
        var candidates: [String] = []
        if let executable = PathContainment.realPath("/proc/self/exe") {
            var folder = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
            candidates.append(folder + "/Public")
            candidates.append(folder + "/../share/tiler/Public")
            for _ in 0..<4 {
                guard let up = folder.lastIndex(of: "/"), up > folder.startIndex else { break }
                folder = String(folder[..<up])
                if FileSignature(path: folder + "/Package.swift") != nil { candidates.append(folder + "/Public") }
            }
        }
        candidates.append("Public")
        return candidates.lazy.compactMap { PathContainment.realPath($0) }.first { FileSignature(path: $0 + "/index.html") != nil }
    }
}
