import Testing
import TileGeometry

@Suite struct GeometryInputTests {
    @Test(arguments: ["0", "-0", "12", "+12", "-0.5", ".25", "25.", "1e3", "1E-3", "-1.5e+2", "000.100", "1e308", "4.9e-324"])
    func acceptsDecimals(text: String) throws {
        #expect(try GeometryInput.decimal(text, parameter: "p") == Double(text)!)
    }

    @Test(arguments: ["", " ", " 1", "1 ", "abc", ".", "-", "+-1", "1e", "e5", "1.2.3", "0x10", "inf", "-infinity", "nan", "1,5", "1_000", "١٢"])
    func refusesNonDecimals(text: String) {
        let error = #expect(throws: GeometryError.self) { try GeometryInput.decimal(text, parameter: "zoomScale") }
        #expect(error?.parameter == "zoomScale")
        #expect(error?.message.hasPrefix("zoomScale must be a number") == true)
    }

    @Test(arguments: ["1e309", "-1e400"])
    func refusesOverflowingDecimals(text: String) {
        let error = #expect(throws: GeometryError.self) { try GeometryInput.decimal(text, parameter: "x") }
        #expect(error?.message.hasPrefix("x is out of range") == true)
    }

    @Test(arguments: ["0", "-0", "7", "+7", "-7", "9223372036854775807", "-9223372036854775808"])
    func acceptsIntegers(text: String) throws {
        #expect(try GeometryInput.integer(text, parameter: "p") == Int(text)!)
    }

    @Test(arguments: ["", "1.0", "1e3", " 1", "--1", "+", "x", "9223372036854775808"])
    func refusesNonIntegers(text: String) {
        let error = #expect(throws: GeometryError.self) { try GeometryInput.integer(text, parameter: "prefetch") }
        #expect(error?.parameter == "prefetch")
    }
}
