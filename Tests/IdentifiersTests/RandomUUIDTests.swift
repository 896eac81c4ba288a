import Foundation
import Identifiers
import Testing

struct RandomUUIDTests {
    /// Version 4, RFC 4122's variant, and no two alike in many.
    @Test func idsAreVersionFourAndDistinct() {
        let ids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            let text = id.uuidString.lowercased()
            #expect(text.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "\(text)")
            #expect(UUID(uuidString: text) == id)
        }
    }
}
