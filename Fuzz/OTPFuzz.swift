// libFuzzer entry point for reading a typed OTP (Crockford base32, 12 symbols); built by
// scripts/fuzz.sh with Sources/OTP/Crockford32.swift.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let value = try Crockford32.decode(text, length: 12)
        // Whatever reads must read again the same from its canonical spelling.
        precondition((try? Crockford32.decode(Crockford32.encode(value, length: 12), length: 12)) == value, "OTP round trip failed")
    } catch {
        // every refusal must say why in words
        precondition(!error.description.isEmpty, "a refusal without a reason")
    }
    return 0
}
