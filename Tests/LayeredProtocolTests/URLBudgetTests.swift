import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("URL budget")
struct URLBudgetTests {
    static func bloodPressure(_ count: Int, start: Int64 = 1_700_000_000) -> [Reading] {
        (0..<count).map { index in
            .bloodPressure(
                .init(
                    systolic: Double(110 + index % 40), diastolic: Double(70 + index % 20), heartRate: 60 + index % 30,
                    arrhythmia: index % 7 == 0,
                    measuredAt: Timestamp(secondsSince1970: start + Int64(index) * 3600)))
        }
    }

    static func syncCallback() throws -> LayeredCallback {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp",
            platform: .ios)
        return try LayeredCallback(answering: request, destination: "myapp://", status: .success)
    }

    @Test("at least 150 blood-pressure readings fit in 20,000 characters")
    func capacity() throws {
        let packed = try LayeredCallback.packing(
            Self.syncCallback(), readings: Self.bloodPressure(400), unit: .mmHg, maximumLength: 20_000)
        #expect(packed.included.count >= 150)
        #expect(packed.url.utf8.count <= 20_000)
        #expect(packed.callback.remaining == 400 - packed.included.count)
        #expect(packed.url.hasSuffix("&remaining=\(400 - packed.included.count)"))
        #expect(packed.included == Array(0..<packed.included.count))
        #expect(packed.leftOut == Array(packed.included.count..<400))
    }

    @Test("packs oldest first, whatever order the readings come in")
    func oldestFirst() throws {
        let readings = Array(Self.bloodPressure(300).reversed())
        let packed = try LayeredCallback.packing(
            Self.syncCallback(), readings: readings, unit: .mmHg, maximumLength: 20_000)
        #expect(packed.included.first == 299)
        let times = packed.included.map { readings[$0].measuredAt }
        #expect(times == times.sorted())
        #expect(packed.leftOut.map { readings[$0].measuredAt }.min()! > times.last!)
        guard case .list(let objects) = packed.callback.result else {
            Issue.record("no list")
            return
        }
        #expect(objects.map(\.measuredAt) == times)
    }

    @Test("never emits a longer URL and never cuts a reading, at every budget")
    func everyBudget() throws {
        let callback = try Self.syncCallback()
        let readings = Self.bloodPressure(12)
        let full = try LayeredCallback.packing(callback, readings: readings, unit: .kPa, maximumLength: .max)
        #expect(full.leftOut.isEmpty && full.callback.remaining == nil)
        var previous = -1
        for budget in 60...(full.url.utf8.count + 5) {
            do {
                let packed = try LayeredCallback.packing(
                    callback, readings: readings, unit: .kPa, maximumLength: budget)
                #expect(packed.url.utf8.count <= budget)
                #expect(packed.included.count >= previous)
                previous = packed.included.count
                #expect(packed.included.count + packed.leftOut.count == 12)
                let parsed = try LayeredCallback(parsing: packed.url)
                #expect(parsed == packed.callback)
                // one more reading would not have fit
                if let next = packed.leftOut.first {
                    #expect(
                        urlLength(
                            callback, readings: packed.included + [next], of: readings, left: packed.leftOut.count - 1)
                            > budget)
                }
            } catch {
                #expect(error.code == .urlBudget)
                #expect(previous == -1, "a budget that fits less than an earlier one")
            }
        }
        #expect(previous == 12)
    }

    @Test("a combined result always carries the live reading and packs the stored ones")
    func combined() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=6&devicemodel=100&mac=004D3208D2F4&scheme=myapp", platform: .ios)
        let callback = try LayeredCallback(answering: request, destination: "myapp://", status: .success(.syncMeasure))
        let live = Self.bloodPressure(1, start: 1_800_000_000)
        let packed = try LayeredCallback.packing(
            callback, readings: Self.bloodPressure(300), measured: live, unit: request.unit, maximumLength: 20_000)
        guard case .combined(let measure, let sync) = packed.callback.result else {
            Issue.record("not combined")
            return
        }
        #expect(measure == live.map { $0.resultObject(unit: .mmHg) })
        #expect(sync.count == packed.included.count && sync.count > 100)
        #expect(packed.url.utf8.count <= 20_000)
    }

    @Test("an echo too long for any result is an error, not a longer URL")
    func tooSmall() throws {
        let callback = try Self.syncCallback()
        let error = #expect(throws: LayeredError.self) {
            try LayeredCallback.packing(callback, readings: Self.bloodPressure(3), unit: .mmHg, maximumLength: 50)
        }
        #expect(error?.code == .urlBudget)
        #expect(error?.reason == .urlBudget)
        #expect(throws: LayeredError.self) {
            try LayeredCallback.packing(callback, readings: [], unit: .mmHg, maximumLength: 50)
        }
        let empty = try LayeredCallback.packing(callback, readings: [], unit: .mmHg, maximumLength: 20_000)
        #expect(empty.callback.result == .list([]) && empty.callback.remaining == nil)
    }
}

/// The length of the callback carrying exactly `indices` of `readings` (in that order) with `left` remaining.
private func urlLength(_ callback: LayeredCallback, readings indices: [Int], of readings: [Reading], left: Int)
    -> Int
{
    var copy = callback
    copy.result = .list(indices.map { readings[$0].resultObject(unit: .kPa) })
    copy.remaining = left > 0 ? left : nil
    return copy.url.utf8.count
}
