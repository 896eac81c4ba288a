import BackendAPI
import Foundation
import Hummingbird
import StrictJSON
import WireJSON

/// Request bodies read as strictly as they are documented: strict JSON (no key twice, no
/// trailing comma), and no field the route does not take, so a misspelt or smuggled field is
/// an error rather than silently ignored. A field's known names come from the type itself: what
/// it encodes back to is what it reads.
enum StrictBody {
    /// `knownFields` names the top-level fields instead, for a type that must not be encoded
    /// again (the screen's message: its copy would hold the PIN).
    static func decode<T: Codable>(
        _ type: T.Type, from body: Data, what: String = "the request body",
        knownFields: Set<String>? = nil
    ) throws(APIError) -> T {
        let given: [String: StrictJSON.Kind]
        do { given = try StrictJSON.scan(body) } catch {
            throw APIError(.badRequest, "MALFORMED_JSON", "\(what) is not strict JSON: \(error.message)")
        }
        let value: T
        do { value = try WireJSON.decoder().decode(T.self, from: body) } catch { throw APIError.malformedJSON(error, what: what) }
        let unknown =
            knownFields.map { fields in given.keys.filter { !$0.isEmpty && !fields.contains($0) }.sorted().first }
            ?? unknownField(given, in: value)
        if let unknown {
            throw APIError(.badRequest, "UNKNOWN_FIELD", "\(what) has a field '\(unknown)' that this route does not take")
        }
        return value
    }

    /// The first given path (other than a null) that the decoded value does not carry.
    private static func unknownField(_ given: [String: StrictJSON.Kind], in value: some Encodable) -> String? {
        guard let encoded = try? WireJSON.bytes(value), let known = try? StrictJSON.scan(encoded) else { return nil }
        return given.filter { $0.value != .null && known[$0.key] == nil }.keys.sorted().first
    }

    /// Routes that take no body accept none, or `{}` (what the pages send).
    static func expectNone(_ body: Data) throws(APIError) {
        guard body.isEmpty || (try? StrictJSON.scan(body)) == ["": .object] else {
            throw APIError(.badRequest, "BODY_NOT_EXPECTED", "this route takes no request body (or an empty object)")
        }
    }
}

extension Request {
    /// Decodes the JSON body within the context's size limit, strictly; every failure is an APIError.
    func decodeJSON<T: Codable>(as type: T.Type, context: AppRequestContext) async throws -> T {
        try StrictBody.decode(T.self, from: try await collectJSONBody(context: context))
    }

    /// For the routes that act on their path alone.
    func expectNoBody(context: AppRequestContext) async throws {
        try StrictBody.expectNone(try await collectJSONBody(context: context))
    }

    /// The body's bytes, refused past the context's size limit.
    func collectJSONBody(context: AppRequestContext) async throws -> Data {
        do { return Data(buffer: try await body.collect(upTo: context.maxUploadSize)) } catch {
            throw APIError(.contentTooLarge, "BODY_TOO_LARGE", "the request body is larger than \(context.maxUploadSize) bytes")
        }
    }
}
