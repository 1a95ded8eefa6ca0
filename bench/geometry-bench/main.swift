import TestSupport
// Throughput of the visible-tiles query and its JSON, for a 1920×1080 viewport on a 100000×100000 image.
// Run with `swift run -c release geometry-bench`. Offsets and zooms come from a seeded generator, so every run
// measures the same queries.
import TileGeometry

let pyramid = Pyramid(width: 100_000, height: 100_000)
let (viewportWidth, viewportHeight) = (1920.0, 1080.0)

/// `count` viewports: zoom from aspect fit to 2× (uniform in its exponent, so every level is drawn), offsets
/// uniform over the scrollable range, content scale 1 or 2.
func makeViewports(count: Int, seed: UInt64) -> [Viewport] {
    var random = SplitMix64(seed: seed)
    let fit = min(viewportWidth, viewportHeight) / 100_000
    let octaves = Int.bitWidth - Int(1 / fit).leadingZeroBitCount + 1  // fit · 2^octaves > 2
    return (0..<count).map { _ in
        let zoom = fit * Double(1 << Int.random(in: 0..<octaves, using: &random)) * Double.random(in: 1..<2, using: &random)
        let x = Double.random(in: 0...max(0, 100_000 * zoom - viewportWidth), using: &random)
        let y = Double.random(in: 0...max(0, 100_000 * zoom - viewportHeight), using: &random)
        let contentScale = Bool.random(using: &random) ? 2.0 : 1.0
        return try! Viewport(x: x, y: y, width: viewportWidth, height: viewportHeight, zoomScale: zoom, contentScale: contentScale)
    }
}

/// Runs `body` over all viewports `rounds` times; returns queries per second and a checksum that keeps the work alive.
func measure(_ viewports: [Viewport], rounds: Int, _ body: (Viewport) -> Int) -> (perSecond: Double, checksum: Int) {
    var checksum = 0
    for viewport in viewports.prefix(1_000) { checksum &+= body(viewport) }  // warm-up
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<rounds {
        for viewport in viewports { checksum &+= body(viewport) }
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (Double(viewports.count * rounds) / seconds, checksum)
}

func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
func lpad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
func grouped(_ value: Double) -> String {
    var digits = String(Int(value + 0.5))  // `rounded()` needs libm, which is not linked
    var groups: [Substring] = []
    while digits.count > 3 {
        groups.insert(digits.suffix(3), at: 0)
        digits.removeLast(3)
    }
    return ([Substring(digits)] + groups).joined(separator: ",")
}

let viewports = makeViewports(count: 20_000, seed: 2_026)
let answers = viewports.map { try! pyramid.visibleTiles(in: $0) }
let meanTiles = Double(answers.map(\.tiles.count).reduce(0, +)) / Double(answers.count)
let meanBytes =
    Double(answers.map { $0.json { "/images/NAME_files/\($0.level)/\($0.column)_\($0.row).jpg" }.utf8.count }.reduce(0, +)) / Double(answers.count)
let levels = Set(answers.map(\.level)).sorted()

print("geometry-bench: 100000×100000 image, 256-px tiles, 1920×1080 viewport, \(viewports.count) seeded viewports")
print(
    "levels drawn \(levels.first!)…\(levels.last!), \(oneDecimal(meanTiles)) tiles per answer on average, \(grouped(meanBytes)) JSON bytes with urls")
print()
print(pad("case", 34) + lpad("queries/s", 14) + lpad("ns/query", 11))
let cases: [(String, (Viewport) -> Int)] = [
    (
        "level + visible rect",
        { pyramid.level(zoomScale: $0.zoomScale, contentScale: $0.contentScale) + (pyramid.visibleRect(of: $0) == nil ? 0 : 1) }
    ),
    ("query (tiles, ordered)", { try! pyramid.visibleTiles(in: $0).tiles.count }),
    ("query + JSON, no urls", { try! pyramid.visibleTiles(in: $0).json().utf8.count }),
    (
        "query + JSON, urls by closure",
        { try! pyramid.visibleTiles(in: $0).json { "/images/NAME_files/\($0.level)/\($0.column)_\($0.row).jpg" }.utf8.count }
    ),
    (
        "query + JSON, urls by prefix",
        { try! pyramid.visibleTiles(in: $0).json(tileURLPrefix: "/images/NAME_files/", tileURLSuffix: ".jpg").utf8.count }
    ),
]
var checksum = 0
// An argument keeps only the cases whose name contains it (for profiling one case).
let filter = CommandLine.arguments.dropFirst().first
for (name, body) in cases where filter.map(name.contains) ?? true {
    let rounds = name.hasPrefix("level") ? 200 : (name.contains("JSON") ? 3 : 10)
    let result = measure(viewports, rounds: rounds, body)
    checksum &+= result.checksum
    print(pad(name, 34) + lpad(grouped(result.perSecond), 14) + lpad(grouped(1e9 / result.perSecond), 11))
}
print("\n(checksum \(checksum))")

/// `value` (≥ 0) with one decimal place, without Foundation.
func oneDecimal(_ value: Double) -> String {
    let tenths = Int(value * 10 + 0.5)
    return "\(tenths / 10).\(tenths % 10)"
}
