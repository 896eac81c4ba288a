// libFuzzer entry point for the QR text decoder; built by scripts/fuzz.sh with the OutOfBand sources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQRText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let payload = try? OutOfBandDecoder.decode(qrText: text) {
        // Whatever decodes must survive its own encoding.
        precondition((try? OutOfBandDecoder.decode(qrText: payload.qrText)) == payload, "QR text round trip failed")
    }
    return 0
}
