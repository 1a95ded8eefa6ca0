import Foundation
import ImageCodecs
import Testing
import TileGeometry

@testable import Slicing

/// Nothing half-written, ever: failures and cancellation leave the destination exactly as it was.
@Suite struct SliceSafetyTests {
    static let image = TestImage.random(width: 700, height: 600, channels: 3, seed: 42)

    /// Slices `source` expecting a failure of `reason`; checks the output folder is unchanged and returns the error.
    @discardableResult
    static func expectFailure(
        _ reason: SliceError.Reason, slicing source: any RowSource, with builder: PyramidBuilder, in fixture: SliceFixture, name: String = "image"
    ) throws -> SliceError? {
        let before = try fixture.snapshot()
        var caught: SliceError?
        do {
            _ = try builder.slice(source, into: fixture.directory, name: name)
            Issue.record("slicing succeeded; expected \(reason)")
        } catch {
            caught = error
            #expect(error.reason == reason, "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
        #expect(try fixture.snapshot() == before, "the output folder changed")
        return caught
    }

    @Test func cancellationMidImageLeavesNothing() throws {
        let fixture = try SliceFixture()
        let builder = PyramidBuilder(options: SliceFixture.options())
        let source = MemoryRowSource(Self.image)
        source.rowsPerRead = 10
        source.beforeRead = { row in if row >= 300 { builder.cancel() } }
        try Self.expectFailure(.cancelled, slicing: source, with: builder, in: fixture)
        #expect(source.nextRow < Self.image.height, "the source was read to the end after cancelling")
        #expect(try fixture.listing().isEmpty)
    }

    @Test func cancellationFromAnotherThreadStopsPromptly() throws {
        let fixture = try SliceFixture()
        let cancellation = SliceCancellation()
        let builder = PyramidBuilder(options: SliceFixture.options(threads: 2), cancellation: cancellation)
        let source = MemoryRowSource(Self.image)
        source.rowsPerRead = 1
        source.beforeRead = { row in
            if row == 100 { Thread.detachNewThread { cancellation.cancel() } }
            if row > 100 { Thread.sleep(forTimeInterval: 0.001) }
        }
        try Self.expectFailure(.cancelled, slicing: source, with: builder, in: fixture)
        #expect(source.nextRow < Self.image.height, "the source was read to the end after cancelling")
        #expect(try fixture.listing().isEmpty)
    }

    @Test func sourceErrorMidImageNamesTheRowAndLeavesNothing() throws {
        let fixture = try SliceFixture()
        let source = MemoryRowSource(Self.image)
        source.failAtRow = 400
        let error = try Self.expectFailure(.source, slicing: source, with: PyramidBuilder(options: SliceFixture.options()), in: fixture)
        #expect(error?.message == "source failed at row 400 of 600: simulated read error (bad block)")
        #expect(try fixture.listing().isEmpty)
    }

    @Test func multiLineSourceErrorsBecomeOneLine() throws {
        let fixture = try SliceFixture()
        let source = MemoryRowSource(Self.image)
        source.failAtRow = 0
        source.failureMessage = "libjpeg said:\nPremature end of JPEG file\r\n"
        let error = try Self.expectFailure(.source, slicing: source, with: PyramidBuilder(options: SliceFixture.options()), in: fixture)
        #expect(error?.message == "source failed at row 0 of 600: libjpeg said: Premature end of JPEG file")
    }

    @Test func sourceEndingEarlyIsAnError() throws {
        let fixture = try SliceFixture()
        let source = MemoryRowSource(Self.image)
        source.endAtRow = 599
        let error = try Self.expectFailure(.source, slicing: source, with: PyramidBuilder(options: SliceFixture.options()), in: fixture)
        #expect(error?.message == "source ended early at row 599 of 600")
    }

    @Test func encoderErrorLeavesNothing() throws {
        final class FailingEncoder: TileEncoding {
            struct Failure: Error, CustomStringConvertible { var description: String { "out of encoder memory" } }
            var count = 0
            func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
                count += 1
                if count == 3 { throw Failure() }
                return [1, 2, 3]
            }
        }
        let fixture = try SliceFixture()
        var options = SliceFixture.options(threads: 1)
        options.makeEncoder = { FailingEncoder() }
        let error = try Self.expectFailure(.encoder, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: options), in: fixture)
        #expect(error?.message.hasSuffix(": out of encoder memory") == true)
    }

    @Test func tileWriteErrorLeavesNothing() throws {
        // The encoder sabotages the staging folder: it puts a folder where level 0's only tile will be written.
        final class SabotagingEncoder: TileEncoding {
            let directory: String
            init(directory: String) { self.directory = directory }
            func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
                let staging = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".image.tiler-") }
                for folder in staging {
                    try? FileManager.default.createDirectory(
                        atPath: "\(directory)/\(folder)/image_files/0/0_0.pam", withIntermediateDirectories: false)
                }
                return [0]
            }
        }
        let fixture = try SliceFixture()
        var options = SliceFixture.options(threads: 1)
        let directory = fixture.directory
        options.makeEncoder = { SabotagingEncoder(directory: directory) }
        let error = try Self.expectFailure(.write, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: options), in: fixture)
        #expect(error?.message.hasPrefix("cannot write tile \(fixture.directory)/.image.tiler-") == true)
        #expect(error?.message.hasSuffix("/image_files/0/0_0.pam: File exists") == true)
        #expect(try fixture.listing().isEmpty)
    }

    @Test func encoderFactoryErrorLeavesNothing() throws {
        struct NoEncoder: Error {}
        let fixture = try SliceFixture()
        var options = SliceFixture.options()
        options.makeEncoder = { throw NoEncoder() }
        try Self.expectFailure(.encoder, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: options), in: fixture)
    }

    @Test(arguments: ["image.dzi", "image_files"])
    func existingDestinationIsRefusedWithoutForce(existing: String) throws {
        let fixture = try SliceFixture()
        let marker = "\(fixture.directory)/\(existing)"
        if existing.hasSuffix(".dzi") {
            try Data("old".utf8).write(to: URL(fileURLWithPath: marker))
        } else {
            try FileManager.default.createDirectory(atPath: "\(marker)/0", withIntermediateDirectories: true)
        }
        let error = try Self.expectFailure(
            .destinationExists, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: SliceFixture.options()), in: fixture)
        #expect(error?.message == "\(marker) already exists (use --force to replace it)")
    }

    @Test func forceReplacesOnlyOnceComplete() throws {
        let fixture = try SliceFixture()
        // The old pyramid is larger (one more level) and has a stray file: none of it may survive.
        let old = TestImage.random(width: 1500, height: 90, channels: 3, seed: 7)
        _ = try PyramidBuilder(options: SliceFixture.options()).slice(MemoryRowSource(old), into: fixture.directory, name: "image")
        try Data("stray".utf8).write(to: URL(fileURLWithPath: "\(fixture.directory)/image_files/stray.txt"))
        let oldState = try fixture.snapshot()

        // A failing forced slice leaves the old pyramid exactly as it was.
        let failing = MemoryRowSource(Self.image)
        failing.failAtRow = 500
        try Self.expectFailure(.source, slicing: failing, with: PyramidBuilder(options: SliceFixture.options(force: true)), in: fixture)
        #expect(try fixture.snapshot() == oldState)

        _ = try PyramidBuilder(options: SliceFixture.options(force: true)).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "image")
        #expect(try fixture.listing() == ["image.dzi", "image_files"])
        let tiles = try PyramidBuilderTests.verify(
            fixture, "image", reference: ReferencePyramid.levels(of: Self.image), tileSize: 256, overlap: 0)
        #expect(tiles == PyramidBuilder.tileCount(of: Pyramid(width: 700, height: 600)))
    }

    @Test func unwritableOrMissingDestinationIsReported() throws {
        let fixture = try SliceFixture()
        let file = "\(fixture.directory)/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let builder = PyramidBuilder(options: SliceFixture.options())
        // procfs refuses new folders even to root; require it mounted, so the case can never write into a plain /proc.
        try #require(FileManager.default.fileExists(atPath: "/proc/self/status"))
        for (directory, expected) in [
            (file, "output folder \(file) is not a folder"),
            ("\(fixture.directory)/missing", "cannot use output folder \(fixture.directory)/missing: No such file or directory"),
            ("/proc", "cannot create a temporary folder in /proc: No such file or directory"),
        ] {
            do {
                _ = try builder.slice(MemoryRowSource(Self.image), into: directory, name: "image")
                Issue.record("slicing into \(directory) succeeded")
            } catch {
                #expect(error.reason == .destination)
                #expect(error.message == expected)
            }
        }
        #expect(try fixture.listing() == ["plain-file"])
    }

    @Test func fullDiskWriteIsReported() throws {
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let code = [UInt8](repeating: 7, count: 4096).withUnsafeBytes { TileWriter.writeAll(fd, $0) }
        #expect(code == ENOSPC)
        let error = SliceError.system(.write, "cannot write tile 3/0_0.jpg", errno: ENOSPC)
        #expect(error.message == "cannot write tile 3/0_0.jpg: No space left on device")
    }

    @Test func invalidOptionsAreRefusedBeforeAnythingIsWritten() throws {
        let fixture = try SliceFixture()
        var cases: [(SliceOptions, String)] = []
        var options = SliceFixture.options(tileSize: 256, overlap: 256)
        cases.append((options, "overlap 256 must be at least 0 and less than the tile size 256"))
        options = SliceFixture.options(tileSize: 0)
        cases.append((options, "tile size 0 is outside 1…8192"))
        options = SliceFixture.options(threads: 0)
        cases.append((options, "thread count 0 is outside 1…256"))
        options = SliceFixture.options()
        options.fileExtension = ".jpg"
        cases.append((options, "tile extension \".jpg\" must be letters and digits, like jpg or png"))
        for (options, message) in cases {
            let error = try Self.expectFailure(
                .invalidOptions, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: options), in: fixture)
            #expect(error?.message == message)
        }
        try Self.expectFailure(
            .invalidOptions, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: SliceFixture.options()), in: fixture, name: "a/b")
    }
}
