import Foundation
import StrictJSON

// libFuzzer entry point for the timeline's redaction, which copies every body of every exchange
// and whose copy can be downloaded; built by scripts/fuzz.sh. A body is kept exactly when it is
// strict JSON; the copy kept is strict JSON too, and under a secret's name it holds nothing but
// the marker.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedaction(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let kept = Redaction.keep(body, fields: ["name", "sessionId"])
    guard size > 0 else {
        precondition(kept.text == nil, "an empty body is kept")
        return 0
    }
    guard (try? StrictJSON.scan(body)) != nil else {
        precondition(kept.text == "‹\(size) bytes that are not JSON, not kept›", "a body that is not strict JSON is kept")
        return 0
    }
    guard let text = kept.text, text.count <= Redaction.maximumLength else { return 0 }
    var copy = StrictJSON.Lexer(Array(text.utf8))
    var secret = false
    do {
        while let token = try copy.next() {
            if secret {
                guard case .scalar(.string, let bytes) = token, try copy.text(ofString: bytes) == Redaction.redacted else {
                    preconditionFailure("a secret's name kept \(token) in \(text)")
                }
            }
            if case .key(let name, _) = token { secret = Redaction.Role(name) == .secret } else { secret = false }
        }
    } catch {
        preconditionFailure("the copy is not strict JSON (\(error)): \(text)")
    }
    return 0
}
