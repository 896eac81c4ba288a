import Backend
import Hummingbird
import Mustache
import Phone

/// The HTML pages: a shell each, filled in by the page's script from the API.
struct PagesController {
    let templates: MustacheLibrary
    let phones: PhoneService
    let backend: DemoBackend

    /// Checks at start-up that every page's template exists, so a missing one fails then and
    /// not on a user's request.
    static let pages = ["index", "phone", "console", "stage"]

    init(templates: MustacheLibrary, phones: PhoneService, backend: DemoBackend) throws {
        for name in Self.pages where templates.getTemplate(named: name) == nil {
            throw TemplateMissing(name: name)
        }
        self.templates = templates
        self.phones = phones
        self.backend = backend
    }

    struct TemplateMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "the template \(name).mustache is missing" }
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in render("index", ["title": "AuthPhone"]) }
        routes.get("console") { _, _ in render("console", ["title": "Backend console · AuthPhone"]) }
        // A session's own link: the console, opened on that session (404 when there is none).
        routes.get("console/sessions/{id}") { _, context in
            let id = try context.parameters.require("id")
            let known = (try? await backend.session(id: id)) != nil
            var page = render("console", ["title": "Session · Backend console · AuthPhone", "sessionId": id])
            if !known { page.status = .notFound }
            return page
        }
        routes.get("stage") { _, _ in render("stage", ["title": "Stage · AuthPhone"]) }
        // An unknown or stale phone link is still the phone page (404): it says "No such phone"
        // and links to all phones, as a person opening an old bookmark needs.
        // `?framed`: inside the stage's frame, without the page's own navigation.
        routes.get("phones/{id}") { request, context in
            let id = try context.parameters.require("id")
            // a Mustache section shows for any string, the empty one too: unframed, the key is left out
            let framed: [String: String] = request.uri.queryParameters["framed"] != nil ? ["framed": "true"] : [:]
            do {
                let phone = try await phones.phone(id: id)
                return render("phone", framed.merging(["title": "\(phone.name) · AuthPhone", "phoneId": phone.id, "phoneName": phone.name]) { $1 })
            } catch let error as PhoneError where error.kind == .notFound {
                var page = render("phone", framed.merging(["title": "No such phone · AuthPhone", "phoneId": id, "phoneName": "unknown"]) { $1 })
                page.status = .notFound
                return page
            }
        }
        return routes
    }

    private func render(_ template: String, _ values: [String: String]) -> HTML {
        HTML(templates.render(values, withTemplate: template) ?? "")
    }
}

struct HTML: ResponseGenerator {
    let html: String
    var status: HTTPResponse.Status = .ok

    init(_ html: String) {
        self.html = html
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
