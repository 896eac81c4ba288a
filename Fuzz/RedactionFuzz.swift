import Foundation
import StrictJSON

// libFuzzer entry point for the timeline's redaction, which copies every body of every exchange
// and whose copy can be downloaded; built by scripts/fuzz.sh. A strict JSON body's copy is strict
// JSON too, and under a secret's name it holds nothing but the marker; any other body is kept
// only as a form (privacyIDEA's requests), redacted by the same names, or not at all.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedaction(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let kept = Redaction.keep(body, fields: ["name", "sessionId"])
    guard size > 0 else {
        precondition(kept.text == nil, "an empty body is kept")
        return 0
    }
    guard (try? StrictJSON.scan(body)) != nil else {
        guard let text = kept.text, text != "‹\(size) bytes that are not JSON or a form, not kept›" else { return 0 }
        // kept as a form (privacyIDEA's requests): name=value pairs, a secret's value the marker
        for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { preconditionFailure("a body neither JSON nor a form is kept: \(text)") }
            let name = String(pair[..<equals]).removingPercentEncoding ?? ""
            precondition(
                Redaction.Role(name) != .secret || pair[pair.index(after: equals)...] == Redaction.redacted,
                "a secret's name kept its value in \(text)")
        }
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
