import FuzzCheck
import VitalSimulation

// A fleet file and a simulated device's saved state, as a user writes or a crash leaves them. Properties: neither
// reader traps, and what each accepts writes back to JSON that reads as the same fleet or state.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFleet(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    if let fleet = try? Fleet(json: input) {
        requireRoundTrip(fleet, "a fleet", encode: \.json) { (json: [UInt8]) throws(FleetError) in
            try Fleet(json: json)
        }
    }
    if let state = try? DeviceState(json: input) {
        requireRoundTrip(state, "a device state", encode: \.json) { (json: [UInt8]) throws(FleetError) in
            try DeviceState(json: json)
        }
    }
    return 0
}
