import ArgumentParser
import Foundation
import LoadGenerator

/// `authphone phone …`: a running server's phones from the command line, adb/simctl style.
/// Exit 0: done; 1: the server refused (its code and message on standard error) or the flow
/// ended otherwise than asked; 64: a usage error. `--json` prints the server's answer.
struct PhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone", abstract: "Create, list and drive the phones of a running AuthPhone.",
        subcommands: [Create.self, List.self, Open.self, Confirm.self, Pin.self, Wait.self, Messages.self, AutoAnswer.self])

    /// What every phone command takes.
    struct Common: ParsableArguments {
        @Option(help: "Base URL of the running AuthPhone.") var server = "http://127.0.0.1:8080"
        @Flag(help: "Print the server's answer as JSON.") var json = false

        var remote: PhoneRemote { PhoneRemote(url: server) }

        /// Runs `work`; prints its answer (JSON, or `text` of it); a refusal exits 1.
        func report(_ text: ([String: Any]) -> String, _ work: () async throws -> [String: Any]) async throws {
            let answer: [String: Any]
            do { answer = try await work() } catch let failure as LoadFailure {
                FileHandle.standardError.write(Data("\(failure.code): \(failure.detail)\n".utf8))
                throw ExitCode(1)
            }
            if json {
                let data = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(text(answer))
            }
        }
    }

    /// `STATE [INTERACTION]` of a flow, or its error code.
    static func describe(_ flow: [String: Any]) -> String {
        let state = flow["state"] as? String ?? "?"
        if let error = flow["error"] as? [String: Any] { return "\(state) \(error["code"] as? String ?? "")" }
        let interaction = (flow["currentInteraction"] as? [String: Any])?["type"] as? String
        return [state, interaction].compactMap { $0 }.joined(separator: " ")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a phone; prints its id.")
        @Argument(help: "The phone's name.") var name: String
        @Option(help: "Its number, E.164 (default: the next free one of +44 7700 900000–900999).") var number: String?
        @OptionGroup var common: Common
        func run() async throws {
            try await common.report({ $0["id"] as? String ?? "" }) { try await common.remote.create(name: name, number: number) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the phones: id, number and name, one a line.")
        @OptionGroup var common: Common
        func run() async throws {
            try await common.report({ answer in
                (answer["phones"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "")\t\($0["number"] ?? "")\t\($0["name"] ?? "")" }
                    .joined(separator: "\n")
            }) { ["phones": try await common.remote.list()] }
        }
    }

    struct Messages: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the phone's texts, newest first: time, sender, code (or -) and text, one a line; --code prints the newest code only.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Flag(help: "Print only the newest text's one-time code; exit 1 if it has none.") var code = false
        @OptionGroup var common: Common
        func run() async throws {
            try await common.report({ answer in
                let texts = answer["messages"] as? [[String: Any]] ?? []
                if code { return texts.first?["code"] as? String ?? "" }
                return texts.map { text in
                    let body = (text["text"] as? String ?? "").replacingOccurrences(of: "\n", with: " ")
                    return "\(text["receivedAt"] ?? "")\t\(text["from"] ?? "")\t\(text["code"] ?? "-")\t\(body)"
                }.joined(separator: "\n")
            }) {
                let texts = try await common.remote.messages(phone)
                if code, texts.first?["code"] == nil { throw LoadFailure("NO_CODE", "the phone's newest text carries no one-time code") }
                return ["messages": texts]
            }
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a phone out-of-band input: QR text, a deep link, or a push (a JSON file); prints the flow it starts.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Option(help: "QR text.") var qr: String?
        @Option(help: "A deep link.") var link: String?
        @Option(help: "A file with a push as FCM sends it or an app receives it.") var file: String?

        @OptionGroup var common: Common

        func validate() throws {
            guard [qr, link, file].compactMap({ $0 }).count == 1 else { throw ValidationError("give exactly one of --qr, --link and --file") }
        }

        func run() async throws {
            var input: [String: any Sendable] = [:]
            if let qr { input["qr"] = qr }
            if let link { input["link"] = link }
            if let file {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw ValidationError("cannot read \(file)") }
                input["push"] = text
            }
            try await common.report(PhoneCommand.describe) { try await common.remote.open(phone, input) }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Confirm the session on the phone's screen; prints the flow then.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Option(help: "The account to use, when the phone has several at that server.") var account: String?
        @OptionGroup var common: Common
        func run() async throws {
            var action: [String: any Sendable] = ["action": "confirmSession"]
            action["account"] = account
            try await common.report(PhoneCommand.describe) { try await settled(common.remote.input(phone, action)) }
        }
    }

    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Type a PIN on the phone's PIN pad; prints the flow then.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Argument(help: "The PIN.") var pin: String
        @OptionGroup var common: Common
        func run() async throws {
            try await common.report(PhoneCommand.describe) {
                try await settled(common.remote.input(phone, ["action": "inputSecondFactor", "pin": pin]))
            }
        }
    }

    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Wait until the phone's flow is in a state; exit 1 if it ends otherwise.")
        @Argument(help: "The phone's id or name.") var phone: String
        @Option(help: "PROCESSING, WAIT_FOR_INPUT, DONE or ERROR.") var state = "DONE"
        @Option(help: "Seconds to wait at most.") var timeout = 60
        @OptionGroup var common: Common
        func run() async throws {
            try await common.report(PhoneCommand.describe) {
                try await withDeadline(.seconds(timeout)) { try await common.remote.wait(phone, state: state) }
            }
        }
    }
}

/// A flow that ended in ERROR is a refusal of the input that led there.
private func settled(_ flow: [String: Any]) throws -> [String: Any] {
    guard flow["state"] as? String != "ERROR" else {
        let error = flow["error"] as? [String: Any]
        throw LoadFailure(error?["code"] as? String ?? "FLOW_ERROR", error?["message"] as? String ?? "the flow ended in ERROR")
    }
    return flow
}

/// `body`'s answer, or TIMEOUT once `limit` has passed.
private func withDeadline(_ limit: Duration, _ body: @escaping @Sendable () async throws -> [String: Any]) async throws -> [String: Any] {
    try await withThrowingTaskGroup(of: Answer.self) { group in
        group.addTask { Answer(value: try await body()) }
        group.addTask {
            try await Task.sleep(for: limit)
            throw LoadFailure("TIMEOUT", "the phone's flow did not reach the state within \(limit)")
        }
        defer { group.cancelAll() }
        return try await group.next()?.value ?? [:]
    }
}

private struct Answer: @unchecked Sendable {
    let value: [String: Any]
}
