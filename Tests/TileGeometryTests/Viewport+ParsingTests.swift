import Testing
import TileGeometry

@Suite struct ViewportParsingTests {
    static let valid = ["x": "-100.5", "y": "2e3", "width": "1920", "height": "1080", "zoomScale": ".25"]

    @Test func parsesRequiredAndOptionalParameters() throws {
        let viewport = try Viewport { Self.valid[$0] }
        #expect(viewport == (try Viewport(x: -100.5, y: 2000, width: 1920, height: 1080, zoomScale: 0.25)))
        var all = Self.valid
        all["contentScale"] = "2"
        all["prefetch"] = "3"
        let full = try Viewport { all[$0] }
        #expect(full.contentScale == 2 && full.prefetch == 3)
    }

    @Test(arguments: ["x", "y", "width", "height", "zoomScale"])
    func missingRequiredParameterIsNamed(name: String) {
        var values = Self.valid
        values[name] = nil
        let error = #expect(throws: GeometryError.self) { try Viewport { values[$0] } }
        #expect(error?.parameter == name)
        #expect(error?.message == "\(name) is required")
    }

    @Test(arguments: [
        ("x", "abc"), ("y", ""), ("width", "0x10"), ("height", "inf"), ("zoomScale", "nan"), ("zoomScale", "1e999"),
        ("width", "0"), ("height", "-5"), ("zoomScale", "-0.5"), ("contentScale", "0"), ("contentScale", " 2"),
        ("prefetch", "1.5"), ("prefetch", "-1"), ("prefetch", "many"), ("prefetch", "99999999999999999999"),
    ])
    func badTextIsAnErrorNamingTheParameter(name: String, text: String) {
        var values = Self.valid
        values[name] = text
        let error = #expect(throws: GeometryError.self) { try Viewport { values[$0] } }
        #expect(error?.parameter == name)
        #expect(error?.message.hasPrefix(name + " ") == true)
    }
}
