import Foundation

/// Runs the built `tiler` executable, as a user would, and captures what it prints.
struct TilerProcess {
    /// The outcome of one run.
    struct Result {
        var status: Int32
        /// Whether the process ended by a signal (a crash) rather than by exiting.
        var signalled: Bool
        var stdout: String
        var stderr: String
        /// Whether the run was killed for outlasting its `timeout`.
        var timedOut = false
    }

    /// The `tiler` binary beside the test bundle (both live in the build's products folder).
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        // On Linux the test runner is `…/debug/TilerPackageTests.xctest`; elsewhere it may sit inside a bundle.
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("tiler").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("tiler")
    }

    /// Runs `tiler arguments…` in `directory` and waits for it; with `environment`, with those variables and none of
    /// this process's `TILER_*` ones; with `timeout` (seconds), killed if it runs longer (``Result/timedOut``), so that
    /// a test of something that must not wait fails instead of hanging.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil, timeout: Double? = nil) throws
        -> Result
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILER_") }.merging(environment) { _, new in new }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killed = Locked(false)
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
                if process.isRunning {
                    killed.value = true
                    process.terminate()
                }
            }
        }
        // Read both pipes concurrently with the run so that a chatty child cannot block on a full pipe.
        let outData = Locked(Data())
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData.value = out.fileHandleForReading.readDataToEndOfFile() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            signalled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: outData.value, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            timedOut: killed.value
        )
    }
}

/// A value shared between threads under a lock.
final class Locked<Value>: @unchecked Sendable {
    // Every access goes through `lock`, so sharing across threads is safe.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
