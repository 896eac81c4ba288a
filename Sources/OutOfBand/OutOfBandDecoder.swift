import Foundation
import StrictJSON
import WireJSON

/// Pure decoders: text in, `OutOfBandPayload` or an `OutOfBandError` out. No I/O, no state.
public enum OutOfBandDecoder {
    /// Longer input than this is refused before any parsing (a QR code holds under 3 KB).
    public static let maximumLength = 8 * 1024

    /// QR text: the payload JSON, base64url-encoded (padding optional) or as it is.
    public static func decode(qrText: String) throws(OutOfBandError) -> OutOfBandPayload {
        let text = qrText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty("QR text") }
        guard text.utf8.count <= maximumLength else { throw .tooLarge("QR text", limit: maximumLength) }
        if text.hasPrefix("{") { return try decode(json: Array(text.utf8)) }
        guard let bytes = Base64URL.decode(text) else {
            throw .malformed("the QR text is neither JSON nor base64url-encoded JSON")
        }
        return try decode(json: bytes)
    }

    /// What a camera reads off a QR code: the QR text itself, or a deep link or app link that
    /// carries it (a relying party may print its link as the code).
    public static func decode(scanned text: String) throws(OutOfBandError) -> OutOfBandPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scheme = trimmed.split(separator: ":", maxSplits: 1).first, trimmed.contains("://"),
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            return try DeepLink.decode(trimmed)
        }
        return try decode(qrText: trimmed)
    }

    /// The payload JSON itself.
    public static func decode(json bytes: [UInt8]) throws(OutOfBandError) -> OutOfBandPayload {
        guard bytes.count <= maximumLength else { throw .tooLarge("payload", limit: maximumLength) }
        return try decode(PayloadFields.self, fromJSON: bytes, what: "the payload").payload
    }

    /// The payload as a push's string-only data map carries it: `nma_data` as JSON text.
    static func decode(contentType: String, version: String, nmaData: String) throws(OutOfBandError) -> OutOfBandPayload {
        let contentType = try OutOfBandPayload.supported(contentType: contentType)
        let version = try OutOfBandPayload.supported(version: version)
        let data = try decode(NMAData.self, fromJSON: Array(nmaData.utf8), what: "nma_data", under: "nma_data")
        return try data.payload(contentType: contentType, version: version)
    }

    /// `bytes` as a `T`, read strictly (a key twice, a trailing comma, anything RFC 8259 does not
    /// write is malformed), a field missing or not a string named by its dotted path: `under`
    /// is the field that holds the text, for JSON text inside a field.
    static func decode<T: Decodable>(
        _ type: T.Type, fromJSON bytes: [UInt8], what: String, under parent: String? = nil
    ) throws(OutOfBandError) -> T {
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(bytes) } catch { throw .malformed("\(what) is not valid JSON: \(error.message)") }
        guard kinds[""] == .object else { throw .malformed("\(what) must be a JSON object") }
        do { return try WireJSON.decoder().decode(T.self, from: Data(bytes)) } catch let error as OutOfBandError {
            throw error
        } catch {
            // every field a payload's types read is a string (nma_data's own kinds are refused where it is read)
            func name(_ path: [any CodingKey]) -> String { ((parent.map { [$0] } ?? []) + path.map(\.stringValue)).joined(separator: ".") }
            switch error {
            case DecodingError.keyNotFound(let key, let context): throw .missingField(name(context.codingPath + [key]))
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
                throw .invalidField(name(context.codingPath), "must be a string")
            default: throw .malformed("\(what) could not be read")
            }
        }
    }
}
