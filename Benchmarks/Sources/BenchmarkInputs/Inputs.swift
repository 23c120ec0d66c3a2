/// The inputs the micro-benchmarks measure, shared by the ordo-one benchmarks (wall time) and `instructions` (the
/// same work counted by callgrind), so that both measure the same thing.
public enum Inputs {
    /// A measurement request as a caller sends it.
    public static let measurementURL =
        "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp&x-trace=a%20b"

    /// A Blood Pressure Measurement with every field (Nordic's full vector).
    public static let bloodPressureBytes: [UInt8] = [
        0x1E, 0x8A, 0x00, 0x58, 0x00, 0x78, 0x00, 0x00, 0x00, 0x04, 0x11, 0x14, 0x29, 0x3B, 0x3C, 0x00, 0x01, 0x27,
        0x00,
    ]

    /// A Glucose Measurement with every field (Nordic's vector).
    public static let glucoseBytes: [UInt8] = [
        0x1B, 0x01, 0x00, 0xE3, 0x07, 0x02, 0x1B, 0x0B, 0x0A, 0x1E, 0xFB, 0xFF, 0x1E, 0x00, 0x12, 0x05, 0x01,
    ]
}
