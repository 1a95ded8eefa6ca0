import NIOHPACK
import NIOHTTP2
import Testing

@testable import HTTPCore

/// A request's urgency from its `Priority` field or RFC 7540 weight, and the order the scheduler lets requests through.
@Suite struct HTTP2PrioritySchedulerTests {
    @Test func theFieldsUrgencyIsTakenAndInvalidOnesIgnored() {
        #expect(HTTP2Priority.urgency(inField: "u=0") == 0)
        #expect(HTTP2Priority.urgency(inField: "i, u=6") == 6)
        #expect(HTTP2Priority.urgency(inField: " u=2 ;x=1, i") == 2)
        #expect(HTTP2Priority.urgency(inField: "u=1, u=5") == 5)
        #expect(HTTP2Priority.urgency(inField: "u=8") == nil)
        #expect(HTTP2Priority.urgency(inField: "u=?1") == nil)
        #expect(HTTP2Priority.urgency(inField: "i") == nil)
    }

    @Test func theFieldComesBeforeTheWeightAndTheDefaultIsThree() {
        let weight = HTTP2Frame.StreamPriorityData(exclusive: true, dependency: .rootStream, weight: 255)
        #expect(HTTP2Priority.urgency(of: HPACKHeaders([("priority", "u=5")]), priorityData: weight) == 5)
        #expect(HTTP2Priority.urgency(of: HPACKHeaders(), priorityData: weight) == 0)
        // Chromium's five weights (stored as weight − 1): urgencies 0 to 4.
        let chromium = [255, 219, 182, 146, 109].map { HTTP2Frame.StreamPriorityData(exclusive: true, dependency: .rootStream, weight: UInt8($0)) }
        #expect(chromium.map { HTTP2Priority.urgency(of: HPACKHeaders(), priorityData: $0) } == [0, 1, 2, 3, 4])
        #expect(HTTP2Priority.urgency(of: HPACKHeaders([("accept", "*/*")]), priorityData: nil) == 3)
    }

    @Test func aBurstIsLetThroughByUrgencyThenArrivalAndNothingIsHeldOutsideOne() {
        let scheduler = HTTP2PriorityScheduler()
        var order: [String] = []
        #expect(!scheduler.isReading)
        scheduler.readStarted()
        #expect(scheduler.isReading)
        for (name, urgency) in [("a", 5), ("b", 0), ("c", 5), ("d", 3), ("e", 0)] { scheduler.hold(urgency: urgency) { order.append(name) } }
        #expect(order.isEmpty)
        scheduler.readEnded()
        #expect(!scheduler.isReading)
        #expect(order == ["b", "e", "d", "a", "c"])
    }
}
