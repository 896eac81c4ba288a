import Foundation
import Hummingbird
import Scenarios

/// `/api/recordings`: a walk recorded from the stage, the console, the phone page or a script,
/// then stopped, named, listed, downloaded (its scenario, or its pytest file) and deleted
/// (docs/recording.md).
struct RecordingsController {
    let recordings: Recordings

    struct Start: Decodable {
        let name: String?
    }

    struct Rename: Decodable {
        let name: String
    }

    struct RecordingList: ResponseEncodable {
        let recordings: [Recordings.Summary]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in RecordingList(recordings: recordings.list()) }
        routes.post { request, context -> EditedResponse<Recordings.Summary> in
            let start = try await request.decodeJSON(as: Start.self, context: context)
            return EditedResponse(status: .created, response: try await recordings.start(name: start.name))
        }
        routes.get("{id}") { request, context in try download(request, id: try context.parameters.require("id")) }
        routes.post("{id}/stop") { request, context -> Recordings.Summary in
            try await request.expectNoBody(context: context)
            return try await recordings.stop(id: try context.parameters.require("id"))
        }
        routes.patch("{id}") { request, context -> Recordings.Summary in
            let rename = try await request.decodeJSON(as: Rename.self, context: context)
            return try recordings.rename(id: try context.parameters.require("id"), to: rename.name)
        }
        routes.delete("{id}") { _, context -> Response in
            try recordings.delete(id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        return routes
    }

    /// The scenario as JSON by default; `?format=pytest` downloads it as a pytest file.
    private func download(_ request: Request, id: String) throws -> Response {
        let scenario = try recordings.scenario(id: id)
        var headers: HTTPFields = [.cacheControl: "no-store"]
        let body: Data
        switch request.uri.queryParameters["format"].map(String.init) ?? "json" {
        case "json":
            headers[.contentType] = "application/json"
            body = try scenario.json()
        case "pytest":
            headers[.contentType] = "text/x-python; charset=utf-8"
            headers[.contentDisposition] = "attachment; filename=\"test_\(PytestWriter.identifier(scenario.name)).py\""
            body = Data(PytestWriter.file(scenario).utf8)
        default:
            throw APIError(.badRequest, "INVALID_FIELD", "the query parameter 'format' must be json or pytest")
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
    }
}
