import LayeredProtocol
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalStore

/// The engine in process (simulated world, in-memory store): a band's per-sport day totals and its nights'
/// segments reach the callback as the store keeps them, and a store too small a budget for a day leaves out what
/// the scheme article says, named (issue 37).
@Suite("Smartbands: sport totals and sleep segments through the engine")
struct BandDayListsEngineTests {
    static let url =
        "ihealth-layer://?cmd=2&devicemodel=700&mac=\(SmartbandTests.mac)&unit=10&ver=100&scheme=vitalbridge-demo"

    @Test("a synced band's days carry each sport's totals and the night in order, as stored; their sums unchanged")
    func callback() async throws {
        let engine = try Engine([SmartbandTests.band(days: 3)])
        let callback = try await engine.callback(Self.url)
        #expect(callback.status == .success(.sync) && callback.remaining == nil)
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result")
            return
        }
        let stored = try engine.store.readings.all(device: SmartbandTests.mac).map(\.reading)
        #expect(objects == stored.map { $0.resultObject(unit: .kilometre) })
        var nights = 0
        for reading in stored {
            guard case .band(let day) = reading else { continue }
            #expect(day.steps == day.sportTotals.map(\.steps).reduce(0, +))
            #expect(day.calories == day.sportTotals.map(\.calories).reduce(0, +))
            guard !day.sleepSegments.isEmpty else { continue }
            nights += 1
            #expect(day.sleepSegments.first?.type == 1 && day.sleepSegments.suffix(2).map(\.type) == [2, 5])
            #expect(Set(day.sleepSegments.map(\.type)) == [1, 2, 3, 4, 5, 6])
            let asleep = day.sleepSegments.filter { [3, 4, 6].contains($0.type) }
            #expect(asleep.map(\.minutes).reduce(0, +) == day.sleep.minutes)
        }
        #expect(nights >= 2)
        #expect(stored.contains { if case .band(let day) = $0 { day.sportTotals.count >= 3 } else { false } })
    }

    @Test("on a budget too small for a day whole, each day goes without its segments, named; none waits forever")
    func smallBudget() async throws {
        // the largest budget (in steps of 50) at which some day does not fit whole even as the first of a callback
        var found: (engine: Engine, days: [ResultObject])?
        for budget in stride(from: 3_000, through: 600, by: -50) {
            let engine = try Engine([SmartbandTests.band(days: 3)], budget: budget)
            var days: [ResultObject] = []
            for _ in 0..<10 {
                let callback = try await engine.callback(Self.url)
                guard case .list(let objects)? = callback.result else { break }
                days += objects
                if callback.remaining == nil { break }
            }
            if days.contains(where: { $0[.leftOut] != nil }) {
                found = (engine, days)
                break
            }
        }
        guard let (engine, days) = found else {
            Issue.record("no budget made a day leave something out")
            return
        }
        let stored = try engine.store.readings.all(device: SmartbandTests.mac).map(\.reading)
        #expect(days.count == stored.count)
        let shortened = days.filter { $0.strings(.leftOut) != nil }
        #expect(!shortened.isEmpty)
        for day in shortened {
            #expect(day.strings(.leftOut)?.first == "sleepdata.segments")
            #expect(day.object(.sleepData)?[.segments] == nil && day.object(.sleepData)?[.deep] != nil)
        }
        // the store keeps them whole
        #expect(
            stored.contains { if case .band(let day) = $0 { !day.sleepSegments.isEmpty } else { false } })
    }
}
