import Testing
import VitalCore

@Suite struct TextTableTests {
    @Test func padsEachColumnToItsWidestCell() {
        let table = TextTable(
            ["MAC", "model", "serial"], [["004D3208D2F4", "BP5", ""], ["004D3208D307", "PO3", "7"]])
        #expect(
            table.description == """
                MAC           model  serial
                ------------  -----  ------
                004D3208D2F4  BP5
                004D3208D307  PO3    7
                """)
    }

    @Test func countsCharactersNotBytes() {
        let table = TextTable(["sport", "unit"], [["走路", "步"], ["walk", "steps"]])
        #expect(
            table.description.split(separator: "\n").map(String.init) == [
                "sport  unit", "-----  -----", "走路     步", "walk   steps",
            ])
    }

    @Test func bodyLeavesOutTheHeaderAndKeepsAnEmptyFirstColumnAligned() {
        let table = TextTable(["", ""], [["", "x"], ["long", "y"]])
        #expect(table.body == "      x\nlong  y")
    }

    @Test func aShortRowHasEmptyCellsAndNoRowsIsTheHeaderAlone() {
        #expect(TextTable(["a", "b"], [["1"]]).description == "a  b\n-  -\n1")
        #expect(TextTable(["name"], []).description == "name\n----")
    }

    @Test(arguments: [
        ("recrods", "records", 2), ("", "abc", 3), ("abc", "", 3), ("same", "same", 0), ("alram", "alarm", 2),
        ("kitten", "sitting", 3),
    ])
    func editDistanceCountsInsertionsDeletionsAndSubstitutions(a: String, b: String, distance: Int) {
        #expect(editDistance(a, b) == distance)
        #expect(editDistance(b, a) == distance)
    }
}
