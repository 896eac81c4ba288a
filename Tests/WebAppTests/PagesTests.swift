import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WebApp

struct PagesTests {
    /// An old bookmark of a phone that was reset or never existed is still a page a person can
    /// use: 404, the phone page's own "No such phone" screen, a link to all phones.
    @Test func anUnknownPhoneLinkIsAPageThatSaysSo() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            try await client.execute(uri: "/phones/no-such-phone", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let page = String(buffer: response.body)
                #expect(page.contains("<title>No such phone · AuthPhone</title>"))
                #expect(page.contains(#"data-phone-id="no-such-phone""#))
            }
            let phone = try await client.createPhone("Known")
            try await client.execute(uri: "/phones/\(phone.id)", method: .get) { #expect($0.status == .ok) }
        }
    }
}
