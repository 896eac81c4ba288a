import Foundation
import WireJSON

/// What a synchronisation's answer tells the phone, opened (`synchronize_container_details`):
/// the tokens to add, each as its enrolment URL (a key URI, or a push token's enrolment), and
/// the tokens it keeps. A token the phone holds that the answer neither keeps nor adds again
/// was removed from the container on the server, and leaves the phone.
public struct ContainerSync: Sendable, Equatable {
    public var add: [String]
    public var keep: [String]
    public var remove: [String]

    /// `opened` is the answer's JSON; `held` the serials the phone listed. An answer for another
    /// container is refused.
    public init(opened: Data, serial: String, held: [String]) throws(PrivacyIDEAError) {
        let answer: Answer
        do { answer = try WireJSON.decoder().decode(Answer.self, from: opened) } catch {
            throw .sync("the opened answer is not privacyIDEA's container JSON: \(WireJSON.describe(error))")
        }
        guard answer.container.serial == serial else {
            throw .sync("the answer is for the container \(answer.container.serial), not \(serial)")
        }
        let keep = answer.tokens.update.map(\.serial).filter(held.contains)
        let added = Set(answer.tokens.add.compactMap(Self.serial(of:)))
        add = answer.tokens.add
        self.keep = keep
        remove = held.filter { !keep.contains($0) && !added.contains($0) }
    }

    /// The `serial` an enrolment URL names (privacyIDEA writes it in every one).
    public static func serial(of url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == "serial" }?.value
    }

    struct Answer: Decodable {
        struct Container: Decodable { var serial: String }
        struct Tokens: Decodable {
            struct Kept: Decodable { var serial: String }
            var add: [String]
            var update: [Kept]
        }
        var container: Container
        var tokens: Tokens
    }
}
