/// Names the subcommand a mistyped first argument most likely meant (`tiler slise` → `slice`).
enum SubcommandSuggestion {
    static let names = ["info", "slice", "serve", "token", "visible", "sample", "demo", "help"]

    /// The error line for an unknown subcommand within edit distance 2 of a real one, or nil to let the parser
    /// answer (options, file names, known subcommands, or nothing close).
    static func message(for argument: String?) -> String? {
        guard let argument, !argument.hasPrefix("-"), !names.contains(argument), !argument.contains("/"), !argument.contains(".")
        else { return nil }
        let scored = names.map { (name: $0, distance: distance(argument.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 2 else { return nil }
        return "unknown subcommand '\(argument)'; did you mean '\(best.name)'?"
    }

    /// Levenshtein distance, counting an exchange of two neighbouring letters as one edit. O(a × b).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }
}
