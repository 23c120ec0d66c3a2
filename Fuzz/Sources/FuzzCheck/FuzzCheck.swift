/// What every fuzz target shares: reading libFuzzer's input, and stopping on a broken property so that libFuzzer
/// saves the input as a crash (`crash-<sha1>`), which then becomes a regression test in the main package.

/// The bytes libFuzzer passes to `LLVMFuzzerTestOneInput`.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the process when `condition` is false: a property every input must keep is broken.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("property broken: \(message())", file: file, line: line) }
}

/// Checks decode → encode → decode identity: `value` was decoded from the input; its encoding must decode to an
/// equal value, and that value must encode to the same bytes.
public func requireRoundTrip<Value: Equatable, Encoded: Equatable, Failure: Error>(
    _ value: Value, _ what: String, encode: (Value) -> Encoded, decode: (Encoded) throws(Failure) -> Value,
    file: StaticString = #fileID, line: UInt = #line
) {
    let encoded = encode(value)
    let again: Value
    do {
        again = try decode(encoded)
    } catch {
        fatalError("property broken: \(what) does not decode its own encoding: \(error)", file: file, line: line)
    }
    require(again == value, "\(what) decodes its encoding to another value", file: file, line: line)
    require(encode(again) == encoded, "\(what) encodes the same value twice differently", file: file, line: line)
}

/// Passes the input but its first byte to the handler that byte picks (modulo their number): one target fuzzes
/// several decoders, and a seed names its decoder in its first byte.
public func dispatch(_ input: [UInt8], to handlers: [@Sendable ([UInt8]) -> Void]) {
    guard let selector = input.first else { return }
    handlers[Int(selector) % handlers.count](Array(input.dropFirst()))
}

/// The input as a string when it is UTF-8, else with each invalid sequence replaced, as a URL opener would pass it.
public func fuzzText(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
