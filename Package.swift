// swift-tools-version:6.0
import PackageDescription

/// Tiler: a tiled large-image server. Targets follow dependency lines, each using only those below it
/// (docs/architecture.md draws them): the C shims; JSONText, TileGeometry, ImageCodecs, Archive, Slicing, TileCache;
/// the server's HTTPCore < TileSources < Rendering, SliceJobs < TileServer; ObjectStore (S3 and HTTP range reads) <
/// ObjectSources (SZIs and TIFFs in a bucket); and a thin `tiler` executable.
// The server's targets call each other on every request; in release builds their function bodies cross the
// module boundaries so that the optimiser inlines and specializes across them as it did inside one module.
let serverTargetSettings: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "Tiler",
    products: [
        .executable(name: "tiler", targets: ["tiler"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        // Pure geometry: Deep Zoom pyramid, visible-rect query, UIScrollView math. Standard library only.
        .target(name: "TileGeometry", dependencies: ["JSONText"]),
        // The one JSON writer and escaping rule: the server's answers, the access log, the command line's --json.
        .target(name: "JSONText"),
        // C shims: the only code that includes png.h / jpeglib.h; each entry point owns its setjmp.
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // libtiff (TIFF and BigTIFF input): per-file error and warning handlers, nothing printed.
        .target(name: "CTIFF", linkerSettings: [.linkedLibrary("tiff")]),
        // libwebp (WebP tiles): the encoder's config and buffer kept per thread; the decoder for tests and the server.
        .target(name: "CWebP", linkerSettings: [.linkedLibrary("webp")]),
        // Little CMS 2: colour profiles to sRGB; its error handler is routed, never printed.
        .target(name: "CLCMS", linkerSettings: [.linkedLibrary("lcms2")]),
        // libdeflate's CRC-32 for ZIP entries and zlib for Deflate TIFF tiles (the PNG codec's zlib use stays inside CPNG).
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z"), .linkedLibrary("deflate")]),
        // Stored ZIP archives (SZI): a streaming writer and a checked, compact index of an archive's entries.
        .target(name: "Archive", dependencies: ["CZlib", "TileGeometry"]),
        // OpenSlide 3.4 (whole-slide images): premultiplied ARGB regions turned into straight RGB over the background.
        .target(name: "COpenSlide", linkerSettings: [.linkedLibrary("openslide")]),
        // C shim for the Linux file calls Swift's Glibc module hides (page-cache-only reads, fd real paths).
        .target(name: "CFileIO"),
        // Safe Swift over the shims: format sniffing, streaming row readers, tile encoders.
        .target(name: "ImageCodecs", dependencies: ["CPNG", "CJPEG", "CTIFF", "CWebP", "CLCMS", "COpenSlide"]),
        // A deterministic photo-like procedural picture of any size (demo and benchmark input).
        .target(name: "SampleImage", dependencies: ["ImageCodecs"]),
        // The streaming pyramid builder (dzsave's shape).
        .target(name: "Slicing", dependencies: ["TileGeometry", "ImageCodecs", "Archive", "CFileIO", "CZlib"]),
        // A generic LRU cache with a byte budget (no locking of its own; the server wraps it).
        .target(name: "TileCache"),
        // The HTTP core on SwiftNIO (HTTP/1.1, and HTTP/2 under it): connections and their time, TLS, parsing, admission, settling, encoding, zero-copy
        // file bodies, the access log. It knows nothing of images: a Responder above it answers.
        .target(
            name: "HTTPCore",
            dependencies: [
                "CFileIO", "JSONText",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: serverTargetSettings
        ),
        // Where tiles come from: the tile-source protocol and its conformances (Deep Zoom folders, SZI, stored
        // pyramids, slides), the catalog of images found under ROOT, and the tile store (cache, single-flight reads,
        // warming, the render budget of made tiles). No HTTP but the body types it fills.
        .target(
            name: "TileSources",
            dependencies: [
                "HTTPCore", "TileGeometry", "TileCache", "ImageCodecs", "CFileIO", "JSONText", "Archive", "Slicing", "ObjectSources",
                "ObjectStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: serverTargetSettings
        ),
        // Rendering regions of a pyramid at a size (IIIF Image requests): the request's model, the band reader,
        // resampling, encoding, and the render threads.
        .target(
            name: "Rendering",
            dependencies: [
                "HTTPCore", "TileSources", "TileGeometry", "ImageCodecs",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: serverTargetSettings
        ),
        // Slicing jobs inside the server: uploads streamed to a staging file, the inbox folder, the job queue and its
        // records, and the coarse-first view of an image still slicing.
        .target(
            name: "SliceJobs",
            dependencies: [
                "HTTPCore", "TileSources", "Slicing", "ImageCodecs", "TileGeometry", "JSONText", "CFileIO",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: serverTargetSettings
        ),
        // The tile service: tiles, descriptors, the visible-rect query, IIIF, access, jobs, metrics, the viewer.
        .target(
            name: "TileServer",
            dependencies: [
                "HTTPCore", "TileSources", "Rendering", "SliceJobs", "TileGeometry", "TileCache", "ImageCodecs", "CFileIO", "JSONText",
                "Archive", "Slicing", "ObjectStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
                // HMAC-SHA256 for access tokens and signed tile URLs (never hand-written cryptography).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: serverTargetSettings
        ),
        // The command line: parses, validates and delegates.
        .executableTarget(
            name: "tiler",
            dependencies: [
                "TileGeometry", "ImageCodecs", "Slicing", "SampleImage", "TileServer", "HTTPCore", "TileSources", "JSONText", "Archive",
                "ObjectStore", "CFileIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The object-store client (issue #47): S3 (SigV4, ranged reads, listing, multipart) and plain HTTP range sources.
        .target(
            name: "ObjectStore",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Pyramids that live in an object store (issue #47): an object read with ranged GETs pinned to its ETag, as the
        // Archive target's asynchronous byte source; an SZI's index, a TIFF's directories read over fetched bytes. Apart,
        // so that neither Archive, ImageCodecs nor ObjectStore depends on another.
        .target(
            name: "ObjectSources",
            dependencies: [
                "Archive", "ImageCodecs", "ObjectStore",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Benchmarks (run with -c release; not tests).
        .executableTarget(name: "codec-bench", dependencies: ["ImageCodecs"], path: "bench/codec-bench"),
        .executableTarget(name: "geometry-bench", dependencies: ["TileGeometry", "TestSupport"], path: "bench/geometry-bench"),
        // What the tests and benchmarks share: the seeded generator and the temporary folder.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The real S3 the object-store tests share: a Ceph RADOS Gateway, named by S3_* or started on first use.
        .target(
            name: "ObjectStoreTestSupport",
            dependencies: [
                "ObjectStore", "TestSupport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/ObjectStoreTestSupport"
        ),

        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry", "TestSupport"]),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "CLCMS", "TestSupport"]),
        .testTarget(name: "SlicingTests", dependencies: ["Slicing", "ImageCodecs", "TileGeometry", "Archive", "TestSupport"]),
        .testTarget(name: "ArchiveTests", dependencies: ["Archive", "TileGeometry", "TestSupport"]),
        .testTarget(name: "TileCacheTests", dependencies: ["TileCache", "TestSupport"]),
        .testTarget(
            name: "TileServerTests",
            dependencies: [
                "TileServer", "HTTPCore", "TileSources", "Rendering", "SliceJobs", "TileGeometry", "ImageCodecs", "Archive", "Slicing", "TestSupport",
                "ObjectStore", "ObjectStoreTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "HTTPCoreTests",
            dependencies: [
                "HTTPCore", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        .testTarget(name: "SampleImageTests", dependencies: ["SampleImage"]),
        .testTarget(
            name: "ObjectStoreTests",
            dependencies: [
                "ObjectStore", "ObjectStoreTestSupport", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ObjectSourcesTests",
            dependencies: [
                "ObjectSources", "Archive", "ObjectStore", "ObjectStoreTestSupport", "Slicing", "ImageCodecs", "SampleImage", "TileGeometry",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TilerTests",
            dependencies: [
                "tiler", "ImageCodecs", "Slicing", "TestSupport", "ObjectStore", "ObjectStoreTestSupport", "Archive",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
