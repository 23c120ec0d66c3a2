import Testing
import VitalDevices

/// The band's days, sports and times as a person writes them.
@Suite struct BandSettingTextTests {
    @Test("days by name and by group, in any case; a word that is not a day is named")
    func days() throws {
        #expect(try BandWeekdays(parsing: "mon,Fri") == [.monday, .friday])
        #expect(try BandWeekdays(parsing: "weekend,mon") == [.saturday, .sunday, .monday])
        #expect(try BandWeekdays(parsing: "every-day") == .everyDay)
        #expect(try BandWeekdays(parsing: "weekdays").hasDay)
        #expect { try BandWeekdays(parsing: "mon,funday") } throws: {
            ($0 as? BandSettingError)?.message.hasPrefix("'funday' is not a day") == true
        }
        #expect(throws: BandSettingError.self) { try BandWeekdays(parsing: "mon,") }
    }

    @Test("a sport by its name in the band's table or by its code")
    func sports() {
        #expect(BandSport(named: "walk") == .walk)
        #expect(BandSport(named: "WALK") == .walk)
        #expect(BandSport(named: "0x01") == .walk)
        #expect(BandSport(named: "0x88")?.rawValue == 0x88)
        #expect(BandSport(named: "0xZZ") == nil && BandSport(named: "hopscotch") == nil)
    }

    @Test("a time of day is HH:mm, 00:00 to 23:59", arguments: ["6:30", "24:00", "12:60", "12:5", "1230", "-1:00", ""])
    func times(text: String) {
        #expect(BandTimeOfDay(parsing: text) == nil)
        #expect(BandTimeOfDay(parsing: "06:30") == BandTimeOfDay(parsing: "06:30"))
        #expect(BandTimeOfDay(parsing: "23:59").map { [$0.hour, $0.minute] } == [23, 59])
    }
}
