/// A failure a command reports as one line (ArgumentParser prints it after `Error: ` and exits 1).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
