import Logging
import Testing

@testable import TileServer

/// Plain-text log lines stay one line and carry nothing a terminal acts on, whatever a file name says.
@Suite struct LogTextTests {
    @Test func controlCharactersAreWrittenAsHexEscapes() {
        #expect(LogText.escaped("plain name/ok") == "plain name/ok")
        #expect(LogText.escaped("café ✓") == "café ✓")
        #expect(LogText.escaped("a\nb\r\tc") == "a\\x0Ab\\x0D\\x09c")
        #expect(LogText.escaped("\u{1B}[31mred\u{1B}[0m") == "\\x1B[31mred\\x1B[0m")
        #expect(LogText.escaped("del\u{7F} c1\u{85} nul\u{0}") == "del\\x7F c1\\xC2\\x85 nul\\x00")
        #expect(LogText.escaped("back\\slash") == "back\\x5Cslash", "so that an escape in the text cannot pass for one of ours")
        #expect(LogText.escaped("ls\u{2028}ps\u{2029}") == "ls\\xE2\\x80\\xA8ps\\xE2\\x80\\xA9")
        #expect(LogText.escaped("gnp.\u{202E}exe") == "gnp.\\xE2\\x80\\xAEexe")
    }

    @Test func aForgedRecordStaysInsideItsLine() {
        let name = "evil\n2026-11-26T00:00:00.000Z critical tiler.server: FORGED \u{1B}[31mred\u{1B}[0m"
        let line = LineLogHandler.line(
            time: "T", level: .info, label: "tiler.server", message: "Serving \(name)", metadata: ["image": "\(name)"], format: .text)
        #expect(line.utf8.filter { $0 == 0x0A }.count == 1 && line.hasSuffix("\n"))
        #expect(!line.utf8.contains(0x1B))
        #expect(line.contains("Serving evil\\x0A2026-11-26T00:00:00.000Z critical"))
        #expect(line.contains(" image=evil\\x0A"))
    }
}
