// libFuzzer entry point for the push message decoder; built by scripts/fuzz.sh with the OutOfBand sources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let message = try? PushDecoder.decode(json: bytes), let payload = try? message.payload() {
        precondition((try? PushMessage(data: PushMessage.data(for: payload)).payload()) == payload, "push round trip failed")
    }
    return 0
}
