import Foundation
import TestSupport
import Testing

@testable import ObjectStore

@Suite struct CivilTimeTests {
    @Test func secondsRoundTripThroughTheCalendar() {
        var generator = SplitMix64(seed: 47)
        for _ in 0..<10_000 {
            let seconds = Int64.random(in: -5_000_000_000...10_000_000_000, using: &generator)
            #expect(CivilTime(secondsSince1970: seconds).secondsSince1970 == seconds)
        }
        #expect(CivilTime(secondsSince1970: 0) == CivilTime(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        #expect(CivilTime(secondsSince1970: 951_782_400) == CivilTime(year: 2000, month: 2, day: 29, hour: 0, minute: 0, second: 0))
    }

    @Test func httpAndISODatesParse() {
        #expect(CivilTime.parseHTTPDate("Wed, 12 Oct 2009 17:50:00 GMT") == Date(timeIntervalSince1970: 1_255_369_800))
        #expect(CivilTime.parseISO8601("2009-10-12T17:50:30.000Z") == Date(timeIntervalSince1970: 1_255_369_830))
        #expect(CivilTime.parseISO8601("2009-10-12T17:50:30Z") == Date(timeIntervalSince1970: 1_255_369_830))
        #expect(CivilTime.parseHTTPDate("Wed, 12 Foo 2009 17:50:00 GMT") == nil)
        #expect(CivilTime.parseISO8601("2009-13-12T17:50:30Z") == nil)
    }
}
