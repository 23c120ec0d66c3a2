import VitalCore

/// `reading` with the field of each column in `unavailable` sent as its special value, and the statuses `status`:
/// what a device that said more than its values gives.
public func annotated(
    _ reading: Reading, _ unavailable: [(ReadingColumn, SpecialValue)] = [], status: ReadingStatus = []
) -> Reading {
    var reading = reading
    for (column, special) in unavailable {
        reading.markUnavailable(reading.kind.fields.first { $0.column == column }!, special)
    }
    reading.annotations.status = status
    return reading
}
