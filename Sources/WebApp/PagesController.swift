import Hummingbird
import Mustache
import Phone

/// The HTML pages: a shell each, filled in by the page's script from the API.
struct PagesController {
    let templates: MustacheLibrary
    let phones: PhoneService

    /// Checks at start-up that every page's template exists, so a missing one fails then and
    /// not on a user's request.
    static let pages = ["index", "phone", "console"]

    init(templates: MustacheLibrary, phones: PhoneService) throws {
        for name in Self.pages where templates.getTemplate(named: name) == nil {
            throw TemplateMissing(name: name)
        }
        self.templates = templates
        self.phones = phones
    }

    struct TemplateMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "the template \(name).mustache is missing" }
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in render("index", ["title": "AuthPhone"]) }
        routes.get("console") { _, _ in render("console", ["title": "Backend console · AuthPhone"]) }
        // An unknown or stale phone link is still the phone page (404): it says "No such phone"
        // and links to all phones, as a person opening an old bookmark needs.
        routes.get("phones/{id}") { _, context in
            let id = try context.parameters.require("id")
            do {
                let phone = try await phones.phone(id: id)
                return render("phone", ["title": "\(phone.name) · AuthPhone", "phoneId": phone.id, "phoneName": phone.name])
            } catch let error as PhoneError where error.kind == .notFound {
                var page = render("phone", ["title": "No such phone · AuthPhone", "phoneId": id, "phoneName": "unknown"])
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
