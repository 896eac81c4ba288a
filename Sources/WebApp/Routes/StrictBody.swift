import BackendAPI
import Foundation
import Hummingbird
import StrictJSON
import WireJSON

/// Request bodies read as strictly as they are documented: strict JSON (no key twice, no
/// trailing comma), and no field the route does not take, so a misspelt or smuggled field is
/// an error rather than silently ignored, even one sent as null. A route's fields are the ones
/// its type asks for as it decodes (`FieldRecording`).
enum StrictBody {
    static func decode<T: Decodable>(_ type: T.Type, from body: Data, what: String = "the request body") throws(APIError) -> T {
        let given: [String: StrictJSON.Kind]
        do { given = try StrictJSON.scan(body) } catch {
            throw APIError(.badRequest, "MALFORMED_JSON", "\(what) is not strict JSON: \(error.message)")
        }
        let decoded: (value: T, fields: Set<String>)
        do { decoded = try FieldRecording.decode(T.self, from: body, with: WireJSON.decoder()) } catch {
            throw APIError.malformedJSON(error, what: what)
        }
        if let unknown = given.keys.filter({ !$0.isEmpty && !decoded.fields.contains($0) }).min() {
            throw APIError(.badRequest, "UNKNOWN_FIELD", "\(what) has a field '\(unknown)' that this route does not take")
        }
        return decoded.value
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
    func decodeJSON<T: Decodable>(as type: T.Type, context: AppRequestContext) async throws -> T {
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
