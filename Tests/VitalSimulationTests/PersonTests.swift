import Testing
import VitalCore
import VitalDevices

@testable import VitalSimulation

/// The simulator's generated readings are one plausible person's: a weight that drifts, a blood pressure with a
/// daily rhythm, band days that differ.
@Suite("A simulated person")
struct PersonTests {
    static let seeds: [UInt64] = [1, 7, 0x004D_3208_D2F4, 0xFFFF_FFFF_FFFF]
    static let start = Timestamp(parsing: "2026-01-01 00:00:00")!

    /// `count` readings of `person` on `model`, evenly `spacing` seconds apart from ``start``, with fixed noise.
    static func history(
        _ person: SimulatedPerson, _ model: DeviceModel, count: Int, spacing: Int64, composition: Bool = false
    ) -> [Reading] {
        var random = SeededGenerator(seed: 99)
        return (0..<Int64(count)).map {
            person.reading(
                for: DeviceCatalog.entry(for: model),
                at: Timestamp(secondsSince1970: start.secondsSince1970 + $0 * spacing), swim: true,
                composition: composition, using: &random)
        }
    }

    @Test("a weight drifts less than 0.3 kg a day and stays within 2 kg of the person's over a year")
    func weight() throws {
        for seed in Self.seeds {
            let person = SimulatedPerson(seed: seed)
            // every 97 minutes for a year: readings hours apart and, through the pairs, a day or more apart
            let readings = Self.history(person, .hs4s, count: 5_420, spacing: 97 * 60, composition: true)
            var weights: [(time: Int64, kilograms: Double, fat: Double)] = []
            for reading in readings {
                guard case .weight(let weight) = reading, let fat = weight.bodyComposition?.bodyFatPercentage else {
                    Issue.record("not a weight with its body fat: \(reading)")
                    return
                }
                weights.append((weight.measuredAt.secondsSince1970, weight.kilograms, fat))
                // the device's resolution: 0.005 kg, 0.1 %
                #expect(abs(weight.kilograms * 200 - (weight.kilograms * 200).rounded()) < 1e-6)
                #expect(abs(fat * 10 - (fat * 10).rounded()) < 1e-6)
            }
            let pairs = Array(zip(weights, weights.dropFirst())) + Array(zip(weights, weights.dropFirst(15)))
            for (earlier, later) in pairs {
                let days = max(1, Double(later.time - earlier.time) / 86_400)
                #expect(abs(later.kilograms - earlier.kilograms) < 0.3 * days, "seed \(seed)")
            }
            #expect(weights.allSatisfy { abs($0.kilograms - person.weight) <= 1.7 }, "seed \(seed)")
            // the waves move it: the year's lightest and heaviest are more than 1.5 kg apart
            let masses = weights.map(\.kilograms)
            #expect(masses.max()! - masses.min()! > 1.5, "seed \(seed)")
        }
    }

    @Test("blood pressure and pulse stay in physiological ranges, higher in the afternoon than at night")
    func bloodPressure() throws {
        for seed in Self.seeds {
            // every 53 minutes for 60 days
            let readings = Self.history(SimulatedPerson(seed: seed), .bp5, count: 1_630, spacing: 53 * 60)
            var afternoon: [Double] = []
            var night: [Double] = []
            for reading in readings {
                guard case .bloodPressure(let pressure) = reading, let pulse = pressure.heartRate else {
                    Issue.record("not a blood pressure with its pulse: \(reading)")
                    return
                }
                #expect((90...185).contains(pressure.systolic) && (50...110).contains(pressure.diastolic))
                #expect(pressure.systolic - pressure.diastolic >= 25 && (48...110).contains(pulse))
                let hour = pressure.measuredAt.secondsSince1970 % 86_400 / 3_600
                if (12..<17).contains(hour) { afternoon.append(pressure.systolic) }
                if (0..<5).contains(hour) { night.append(pressure.systolic) }
            }
            let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
            #expect(mean(afternoon) - mean(night) >= 8, "seed \(seed)")
            // irregular pulse now and then, not never and not often
            let irregular = readings.filter {
                if case .bloodPressure(let p) = $0 { p.arrhythmia == true } else { false }
            }
            #expect((10...100).contains(irregular.count), "seed \(seed)")
        }
    }

    @Test("glucose, temperature and oxygen saturation stay in range, glucose higher after meals")
    func otherKinds() throws {
        for seed in Self.seeds {
            let person = SimulatedPerson(seed: seed)
            var afterMeals: [Double] = []
            var fasting: [Double] = []
            for reading in Self.history(person, .bg5, count: 1_000, spacing: 37 * 60) {
                guard case .glucose(let glucose) = reading else {
                    Issue.record("not a glucose: \(reading)")
                    return
                }
                #expect((70...200).contains(glucose.mgPerDeciliter))
                let hour = glucose.measuredAt.secondsSince1970 % 86_400 / 3_600
                if [7, 8, 12, 13, 19, 20].contains(hour) { afterMeals.append(glucose.mgPerDeciliter) }
                if [3, 4, 5].contains(hour) { fasting.append(glucose.mgPerDeciliter) }
            }
            let meanAfterMeals = afterMeals.reduce(0, +) / Double(afterMeals.count)
            let meanFasting = fasting.reduce(0, +) / Double(fasting.count)
            #expect(meanAfterMeals > meanFasting + 20, "seed \(seed)")
            for reading in Self.history(person, .thv3, count: 500, spacing: 41 * 60) {
                guard case .temperature(let temperature) = reading else {
                    Issue.record("not a temperature: \(reading)")
                    return
                }
                #expect((35.9...37.3).contains(temperature.celsius))
            }
            for reading in Self.history(person, .po3, count: 500, spacing: 41 * 60) {
                guard case .oximetry(let oximetry) = reading else {
                    Issue.record("not an oximetry: \(reading)")
                    return
                }
                #expect((95...99).contains(oximetry.oxygenSaturation) && (48...110).contains(oximetry.heartRate))
            }
        }
    }

    @Test("an activity monitor's days differ: steps, sleep, and a swim on some days only")
    func activityDays() throws {
        let days = Self.history(SimulatedPerson(seed: 3), .am4, count: 28, spacing: 86_400).compactMap {
            if case .activity(let day) = $0 { day } else { nil }
        }
        #expect(days.count == 28)
        #expect(Set(days.map(\.sleepMinutes)).count >= 20 && Set(days.map(\.steps)).count >= 20)
        let swims = days.filter { ($0.swimMinutes ?? 0) > 0 }.count
        #expect(swims < 28)
    }

    @Test("band days differ: each night and each sport has its own times, all over before they are recorded")
    func bandDays() throws {
        let life = BandLife(seed: 0x004D_3208_D310)
        let days = (0..<14).map { CalendarDate(daysSince1970: Self.start.day.daysSince1970 + Int64($0)) }
        let nights = days.map { life.night($0) }
        let sports = days.map { life.sport($0) }
        #expect(Set(nights.map { [$0.first!.start.value, $0.last!.end.value] }).count >= 10)
        #expect(Set(sports.map { [$0.start.value, $0.end.value] }).count >= 10)
        #expect(nights.allSatisfy { $0.last!.end.value < 7 * 60 })
        #expect(sports.allSatisfy { $0.start.value >= 17 * 60 && $0.end.value <= 20 * 60 + 45 })
        // 90 days of recording: each sport once, at its end (some at the turn of an hour), and the follower wakes
        // for it
        var recorded: [BandSportSession] = []
        let from = Self.start
        let through = Timestamp(secondsSince1970: from.secondsSince1970 + 90 * 86_400)
        var exercises: [BandSportSession] = []
        var placed = 0
        var totals: [(date: CalendarDate, totals: BandTotals)] = []
        life.items(after: from, through: through) { item in
            switch item {
            case .sport(let session) where session.detail == nil: recorded.append(session)
            case .sport(let session): exercises.append(session)
            case .sleep(let segment) where segment.type == .placed: placed += 1
            case .dayTotals(let date, let day): totals.append((date, day))
            default: break
            }
        }
        let all = (0..<90).map { life.sport(CalendarDate(daysSince1970: Self.start.day.daysSince1970 + Int64($0))) }
        #expect(recorded == all)
        // a counting exercise each day at noon, with its repetitions; its sport's totals carry them too; each night
        // ends with the band placed
        #expect(exercises.count == 90 && placed == 90)
        let counting: Set<UInt8> = [0x02, 0x03, 0x04, 0x06]
        #expect(exercises.allSatisfy { counting.contains($0.sport.rawValue) && ($0.count ?? 0) > 0 })
        #expect(exercises.allSatisfy { $0.start.value >= 12 * 60 && $0.end.value < 13 * 60 })
        #expect(Set(exercises.map(\.sport)).count == 4)
        // each day's totals: walking, the evening sport unless a walk, and the exercise with its repetitions
        let counted = totals.filter { $0.totals.count != nil }
        #expect(counted.count >= 89)
        #expect(counted.allSatisfy { $0.totals.count == life.exercise($0.date).count })
        #expect(totals.contains { $0.totals.sport != .walk && $0.totals.count == nil })
        #expect(all.contains { $0.end.value % 60 == 0 })
        for day in days.prefix(3) {
            let end = life.sportEnd(day)
            let before = Timestamp(secondsSince1970: end - 60)
            #expect(BandState.nextEvent(after: before, life: life).secondsSince1970 == end)
        }
    }
}
