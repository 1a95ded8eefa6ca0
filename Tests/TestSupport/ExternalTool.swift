import Foundation

/// Runs a real program (Python's `zipfile`, `unzip`, `vips`) and returns what it printed: the checks of files we write
/// made by the tools that others will read them with.
public enum ExternalTool {
    /// What a run printed, and how it ended.
    public struct Outcome: Sendable {
        /// The exit status.
        public let status: Int32
        /// Standard output as UTF-8 text.
        public let output: String
        /// Standard error as UTF-8 text.
        public let errors: String
    }

    /// Runs `tool` (an absolute path) with `arguments`, waiting for it to exit.
    public static func run(_ tool: String, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard error is drained on another thread, so that neither pipe can fill up and stall the tool.
        let errors = Locked(Data())
        let drain = Thread { errors.set(err.fileHandleForReading.readDataToEndOfFile()) }
        drain.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !drain.isFinished { usleep(1000) }
        return Outcome(
            status: process.terminationStatus, output: String(decoding: data, as: UTF8.self), errors: String(decoding: errors.get(), as: UTF8.self))
    }

    /// A value shared between two threads under a lock.
    private final class Locked<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func set(_ newValue: Value) { lock.withLock { value = newValue } }
        func get() -> Value { lock.withLock { value } }
    }
}
