import Logging
import NIOHTTP1
import Testing

@testable import HTTPCore

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

/// Credentials never reach a log line.
@Suite struct LogRedactionTests {
    @Test func tokensAndSignaturesAreRedacted() {
        #expect(LogText.redacted("/images/a.dzi") == "/images/a.dzi")
        #expect(LogText.redacted("/images/a.dzi?token=tiler1.k.c.s") == "/images/a.dzi?token=REDACTED")
        #expect(LogText.redacted("/i/a_files/1/0_0.jpg?exp=9&kid=k1&sig=abc&x=1") == "/i/a_files/1/0_0.jpg?exp=9&kid=k1&sig=REDACTED&x=1")
        #expect(LogText.redacted("/x?tokens=1&sig") == "/x?tokens=REDACTED&sig")
    }

    /// What a client sends under another spelling is redacted too, though the server refuses it: it may still be a
    /// valid credential.
    @Test func otherSpellingsOfCredentialsAreRedacted() {
        #expect(LogText.redacted("/a.dzi?access_token=tiler1.k1.c.s&x=1") == "/a.dzi?access_token=REDACTED&x=1")
        #expect(
            LogText.redacted("/a.dzi?Token=T&TOKEN=U&%74oken=V&%54OKEN=W") == "/a.dzi?Token=REDACTED&TOKEN=REDACTED&%74oken=REDACTED&%54OKEN=REDACTED"
        )
        #expect(
            LogText.redacted("/t.jpg?EXP=9&KID=k1&SIG=S&%73ig=T&signature=U") == "/t.jpg?EXP=9&KID=k1&SIG=REDACTED&%73ig=REDACTED&signature=REDACTED")
        #expect(LogText.redacted("/a.dzi?auth=A&api_key=B&password=C&level=3") == "/a.dzi?auth=REDACTED&api_key=REDACTED&password=REDACTED&level=3")
        // A token anywhere else: as a nameless parameter, in the path, after a `;`.
        #expect(LogText.redacted("/a.dzi?tiler1.k1.c.s&x=1") == "/a.dzi?REDACTED&x=1")
        #expect(LogText.redacted("/images/tiler1.k1.c.s/a.dzi") == "/images/REDACTED/a.dzi")
        #expect(LogText.redacted("/a.dzi;t=tiler1.k1.c.s;x") == "/a.dzi;t=REDACTED;x")
        #expect(LogText.redacted("/images/tiler.dzi?level=1") == "/images/tiler.dzi?level=1")
    }

    @Test func theAccessLogWritesNoToken() throws {
        let target = "/images/a/one_files/9/0_0.jpg?exp=99&kid=k1&sig=SECRETSIG&token=SECRETTOKEN"
        for format in [AccessLogFormat.text, .json] {
            let lines = try AccessLogTests.lines(format) { log in
                log.record(Exchange(head: .init(version: .http1_1, method: .GET, uri: target)), status: .ok, bytes: 1, microseconds: 1, client: "-")
            }
            #expect(lines.count == 1 && !lines[0].contains("SECRET") && lines[0].contains("sig=REDACTED"))
        }
    }
}
