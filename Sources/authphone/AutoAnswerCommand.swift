import ArgumentParser
import Foundation

extension PhoneCommand {
    /// `authphone phone auto-answer NAME --answer confirm|decline [--from SERVER …] | --list | --clear`
    /// (docs/scripting.md#auto-answer-rules).
    struct AutoAnswer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "auto-answer",
            abstract: "Add an auto-answer rule to a phone (prints its id), list its rules, or clear them.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Option(help: "confirm or decline the requests the rule covers.") var answer: String?
        @Option(help: "The second factor's PIN (checked on the phone: it must be the phone's PIN).") var pin: String?
        @Flag(help: "Answer the second factor with the biometric.") var biometric = false
        /// `--from`, as `--server` is the running AuthPhone's URL, as in every phone command.
        @Option(name: .customLong("from"), help: "Only requests from this server: an origin (https://host[:port]) or a host name.")
        var server: String?
        @Option(help: "Only requests for this user.") var user: String?
        @Option(help: "Only requests whose text contains this.") var text: String?
        @Option(help: "The account to pick (and only requests it is offered for).") var account: String?
        @Option(help: "Used up after this many answers.") var count: Int?
        @Option(help: "Ignored after this many seconds.") var expiresIn: Int?
        @Flag(help: "List the phone's rules, one a line.") var list = false
        @Flag(help: "Remove all the phone's rules.") var clear = false
        @OptionGroup var common: Common

        /// The options that make a rule, as the API's body names them.
        private var rule: [String: any Sendable] {
            var body: [String: any Sendable] = [:]
            body["answer"] = answer
            body["pin"] = pin
            body["biometric"] = biometric ? true : nil
            body["server"] = server
            body["user"] = user
            body["text"] = text
            body["account"] = account
            body["count"] = count
            body["expiresIn"] = expiresIn
            return body
        }

        func validate() throws {
            guard [answer != nil, list, clear].filter({ $0 }).count == 1 else {
                throw ValidationError("give exactly one of --answer, --list and --clear")
            }
            if answer == nil, rule.count > 0 { throw ValidationError("a rule's options go with --answer") }
        }

        func run() async throws {
            let remote = common.remote
            if list {
                try await common.report({ answer in
                    (answer["rules"] as? [[String: Any]] ?? []).map(Self.describe).joined(separator: "\n")
                }) { ["rules": try await remote.autoAnswerRules(phone)] }
            } else if clear {
                try await common.report({ _ in "cleared" }) {
                    try await remote.clearAutoAnswerRules(phone)
                    return [:]
                }
            } else {
                try await common.report({ $0["id"] as? String ?? "" }) { try await remote.addAutoAnswerRule(phone, rule) }
            }
        }

        /// `ID ANSWER key=value…` of a rule.
        static func describe(_ rule: [String: Any]) -> String {
            let conditions = ["server", "user", "text", "secondFactor", "account", "remaining", "expiresAt"].compactMap { key in
                rule[key].map { "\(key)=\($0)" }
            }
            return ([rule["id"] as? String ?? "?", rule["answer"] as? String ?? "?"] + conditions).joined(separator: " ")
        }
    }
}
