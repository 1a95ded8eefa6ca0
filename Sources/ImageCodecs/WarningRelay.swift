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
