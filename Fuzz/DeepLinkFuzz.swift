// libFuzzer entry point for the deep link decoder; built by scripts/fuzz.sh with the OutOfBand sources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeepLink(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let payload = try? DeepLink.decode(text) {
        precondition((try? DeepLink.decode(payload.deepLink)) == payload, "deep link round trip failed")
    }
    return 0
}
