/// Carries `DecodeOptions.onWarning` through the C shims' `void *` context argument.
///
/// The shim holds an unretained pointer, so the row source that passes it keeps the relay alive for
/// as long as the C reader exists.
final class WarningRelay {
    private let path: String
    private let handler: @Sendable (String) -> Void

    init(path: String, handler: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.handler = handler
    }

    /// The context pointer to hand to the shim.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The C callback both shims take: forwards `"<path>: <message>"` to the handler.
    static let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { context, message in
        guard let context, let message else { return }
        let relay = Unmanaged<WarningRelay>.fromOpaque(context).takeUnretainedValue()
        relay.handler("\(relay.path): \(String(cString: message))")
    }
}

extension WarningRelay {
    /// The C signature of ``trampoline``, which every shim's reader takes.
    typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void

    /// The set-up every shim's reader shares: a relay for `options.onWarning` (nil without a handler), and the reader
    /// `create` makes from `options.lenient` (1 or 0), the callback and its context — or `.outOfMemory` naming the
    /// `format` reader when it makes none. The decoder keeps the relay for as long as the reader lives.
    static func reader(
        _ format: String, file: InputFile, options: DecodeOptions, _ create: (Int32, Callback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    ) throws(CodecError) -> (reader: OpaquePointer, relay: WarningRelay?) {
        let relay = options.onWarning.map { WarningRelay(path: file.path, handler: $0) }
        guard let reader = create(options.lenient ? 1 : 0, relay == nil ? nil : trampoline, relay?.context) else {
            throw CodecError(kind: .outOfMemory, path: file.path, message: "out of memory creating the \(format) reader")
        }
        return (reader, relay)
    }
}
