import StrictJSON

// libFuzzer entry point for the strict JSON reader every request body goes through; built by
// scripts/fuzz.sh. What it accepts it must accept again with the same paths, with a root.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStrictJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let kinds = try? StrictJSON.scan(bytes) {
        precondition(kinds[""] != nil, "an accepted document has no root")
        precondition((try? StrictJSON.scan(bytes)) == kinds, "the same bytes read twice differ")
    }
    return 0
}
