// libFuzzer entry point for what a sender hands the SMS gateway: a form's fields, the text they
// make, its recipient's number, and the one-time code the phone finds in it; built by
// scripts/fuzz.sh with Sources/SMSGateway/OutgoingText.swift, SMSError.swift,
// Sources/Phone/Apps/Messages/OneTimeCode.swift and the Identifiers library.
import Identifiers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let number = try? PhoneNumber(reading: text) {
        // a number read is read again the same from its E.164 spelling
        precondition((try? PhoneNumber(reading: number.e164)) == number, "E.164 round trip failed")
    }
    if let code = OneTimeCode.find(in: text) {
        precondition((4...10).contains(code.count) && code.allSatisfy { $0.isASCII && $0.isNumber }, "a code that is no code: \(code)")
    }
    guard let fields = OutgoingText.formFields(bytes) else { return 0 }
    do {
        let parsed = try OutgoingText(gatewayParameters: Dictionary(fields, uniquingKeysWith: { _, last in last }))
        precondition(parsed.body.count <= OutgoingText.maximumLength, "a text over the limit was taken")
    } catch {
        // every refusal must say why in words, with a Twilio code
        precondition(!error.message.isEmpty && error.twilioCode > 0, "a refusal without a reason")
    }
    return 0
}
