import FuzzCheck
import LayeredProtocol
import VitalCore

// A JSON document (VitalBridge's one reader: callback results, fleet files, device states, ShareVitalSigns boards).
// Properties: the reader never traps; what it accepts writes compact and indented to documents that read back to
// the same value; a document it accepts as result JSON writes back to the same result.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    if let value = try? JSON.parse(input) {
        // JSON is not Equatable (an object keeps its members' order): its compact bytes stand for it
        let compact = value.serialized(pretty: false)
        for pretty in [false, true] {
            let written = value.serialized(pretty: pretty)
            guard let again = try? JSON.parse(written) else {
                fatalError("property broken: a JSON document written \(pretty ? "indented" : "compact") does not read")
            }
            require(again.serialized(pretty: false) == compact, "a JSON document reads back to another value")
        }
    }
    if let result = try? LayeredResult(json: fuzzText(input)) {
        requireRoundTrip(result, "a result", encode: \.json) { (json: String) throws(LayeredError) in
            try LayeredResult(json: json)
        }
    }
    return 0
}
