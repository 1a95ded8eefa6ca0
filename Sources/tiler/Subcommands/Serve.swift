import ArgumentParser
import Foundation
import TileServer

/// `tiler serve`: serves every `*.dzi` pyramid under ROOT over HTTP until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve every *.dzi pyramid under ROOT over HTTP, with the viewer.",
        discussion: """
            Pyramids are named by their path relative to ROOT without .dzi (ROOT/maps/city.dzi is "maps/city") and \
            appear and disappear while serving. Routes: /api/images, /api/images/NAME/visible?x=&y=&width=&height=\
            &zoomScale=[&contentScale=][&prefetch=], /images/NAME.dzi, /images/NAME_files/L/C_R.EXT, /healthz, \
            /metrics, and the viewer at /. Stops gracefully on SIGINT or SIGTERM.
            """
    )

    @Argument(help: "The folder whose *.dzi pyramids are served (searched recursively).")
    var root: String = "."

    @Option(help: "The address to listen on (0.0.0.0 for every interface).")
    var host: String = "127.0.0.1"

    @Option(help: "The TCP port; 0 picks a free one.")
    var port: Int = 8080

    @Option(name: .customLong("cache-mb"), help: "The tile cache budget, in MiB.")
    var cacheMB: Int = 256

    @Option(name: .customLong("public"), help: "The viewer folder (default: Public/ beside the executable, else in the working directory).")
    var publicDirectory: String?

    /// An image to name in the startup line as the one to open (the demo sets it).
    var openHint: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535 (got \(port))") }
        guard (0...(1 << 20)).contains(cacheMB) else { throw ValidationError("--cache-mb must be 0…1048576 (got \(cacheMB))") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("ROOT \(root) is not a folder")
        }
        if let publicDirectory {
            guard FileManager.default.fileExists(atPath: publicDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--public \(publicDirectory) is not a folder")
            }
        }
    }

    func run() throws {
        var configuration = ServerConfiguration(root: root)
        configuration.host = host
        configuration.port = port
        configuration.cacheBytes = cacheMB << 20
        configuration.publicDirectory = publicDirectory
        let server = try Server.startBlocking(configuration)
        SignalHub.shared.setHandler { _ in server.beginShutdown() }
        defer { SignalHub.shared.clear() }
        // Unbuffered, so a script reading stdout learns the URL (and the port when --port 0) at once.
        FileHandle.standardOutput.write(Data("Tiler is serving \(root) at \(server.url)\n".utf8))
        if let openHint { FileHandle.standardOutput.write(Data("Open \(server.url)#image=\(openHint) in a browser.\n".utf8)) }
        server.blockUntilStopped()
    }
}
