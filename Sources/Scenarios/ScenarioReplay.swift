import Foundation
import LoadGenerator
import NIOHTTP1
import WireJSON

/// A scenario walked again on a running server (`authphone replay`): each step sent as the page
/// or a script would send it, the names it recorded bound to the new ids as they come, and what
/// each step answers held against what it answered when recorded. The first that differs ends
/// the replay (`ReplayDifference`), naming the step.
public struct ScenarioReplay {
    let api: ServerAPI
    /// How long a step that waits (a push to arrive, a session to end) waits at most.
    let patience: Duration
    private var ids: [String: String] = [:]
    private var sessions: [String: [String: Any]] = [:]
    private var pins = PinBook()

    public init(url: String, patience: Duration = .seconds(15)) {
        api = ServerAPI(base: url)
        self.patience = patience
    }

    /// Runs every step in order; `report` hears each one done, as a line.
    public mutating func run(_ scenario: Scenario, report: (String) -> Void) async throws {
        if scenario.clock == .manual {
            let clock = try await api.call(.GET, "/api/clock")
            guard clock["mode"] as? String == "manual" else {
                throw ScenarioError("the walk moved the server's clock: replay it on a server started with --clock manual")
            }
        }
        for (index, step) in scenario.steps.enumerated() {
            let (expected, actual) =
                step.do == .sessionOutcome
                ? (step.outcome ?? "", await outcome(of: id(step.session)))
                : try await answers(step)
            guard expected == actual else {
                throw ReplayDifference(step: index + 1, what: Self.describe(step), expected: expected, actual: actual)
            }
            report("\(index + 1). \(Self.describe(step)): \(actual)")
        }
    }

    /// What the step answered when recorded and now, as lines to compare: the same refusal, or
    /// success with the same flow where a flow was recorded.
    private mutating func answers(_ step: ScenarioStep) async throws -> (expected: String, actual: String) {
        let expected = step.expect ?? Expectation()
        var seen = try await perform(step)
        if expected.error == nil, seen.error == nil, expected.flow == nil { seen.flow = nil }
        return (expected.summary, seen.summary)
    }

    /// Sends one step; what it answered (an error's code, or the flow it left).
    private mutating func perform(_ step: ScenarioStep) async throws -> Expectation {
        do {
            switch step.do {
            case .createPhone:
                let phone = try await api.call(.POST, "/api/phones", ["name": step.name ?? ""])
                ids[step.phone ?? ""] = phone["id"] as? String
            case .startSession:
                var fields = step.fields ?? [:]
                if let pushTo = step.pushTo { fields["pushToken"] = .string(try await pushToken(of: pushTo)) }
                let session = try await api.call(.POST, "/api/backend/sessions", json: try WireJSON.data(fields))
                if let name = step.session {
                    ids[name] = session["id"] as? String
                    sessions[name] = session
                }
            case .pushSession:
                let token = try await pushToken(of: step.phone ?? "")
                _ = try await api.call(.POST, "/api/backend/sessions/\(id(step.session))/push", ["pushToken": token])
            case .scan:
                let code = step.session.map { sessions[$0]?[step.via == "link" ? "deepLink" : "qrText"] as? String ?? "" } ?? step.code ?? ""
                return try await flow(.POST, "/api/phones/\(id(step.phone))/oob", [code.contains("://") ? "link" : "qr": code])
            case .openPush:
                let message = try await oldestPush(of: id(step.phone))
                return try await flow(.POST, "/api/phones/\(id(step.phone))/inbox/\(message)/open", [:])
            case .act:
                return try await flow(.POST, "/api/phones/\(id(step.phone))/actions", try await action(step))
            case .startFlow:
                return try await flow(.POST, "/api/phones/\(id(step.phone))/flows", ["type": step.type ?? ""])
            case .enrolBiometric:
                _ = try await api.call(.POST, "/api/phones/\(id(step.phone))/sensor/features")
            case .sendPush:
                var message = step.message ?? [:]
                if let pushTo = step.pushTo { message["token"] = .string(try await pushToken(of: pushTo)) }
                _ = try await api.call(.POST, "/v1/projects/authphone/messages:send", json: try WireJSON.data(["message": message]))
            case .unblockPin:
                _ = try await api.call(.POST, "/api/backend/unblock-pin", ["userId": step.user ?? ""])
            case .addFault:
                var spec = step.spec ?? [:]
                if case .string(let phone)? = spec["phoneId"] { spec["phoneId"] = .string(id(phone)) }
                let fault = try await api.call(.POST, "/api/faults", json: try WireJSON.data(spec))
                ids[step.fault ?? ""] = fault["id"] as? String
            case .removeFault:
                _ = try await api.call(.DELETE, "/api/faults/\(id(step.fault))")
            case .clearFaults:
                _ = try await api.call(.DELETE, "/api/faults")
            case .reset:
                _ = try await api.call(.POST, "/api/reset", json: nil)
            case .advanceClock:
                _ = try await api.call(.POST, "/api/clock", ["advanceSeconds": step.seconds ?? 0])
            case .sessionOutcome:
                break
            }
        } catch let failure as LoadFailure {
            return Expectation(error: failure.code)
        }
        return Expectation()
    }

    /// The id the replay's server gave what the recording named `name`.
    private func id(_ name: String?) -> String {
        let name = name ?? ""
        return (ids[name] ?? name).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name
    }

    private func pushToken(of phone: String) async throws -> String {
        try await api.call(.GET, "/api/phones/\(id(phone))")["fcmToken"] as? String ?? ""
    }

    private func flow(_ method: HTTPMethod, _ path: String, _ body: [String: any Sendable]) async throws -> Expectation {
        Expectation(flow: try await api.call(method, path, body, answer: Answered.self).flow.map(FlowSeen.init))
    }

    /// A phone route's answer, as far as a walk reads it.
    private struct Answered: Decodable {
        let flow: FlowSeen.Wire?
    }

    /// The screen's input with the PINs' digits for their roles, and the account by its name.
    private mutating func action(_ step: ScenarioStep) async throws -> [String: any Sendable] {
        var action: [String: any Sendable] = ["action": step.action ?? ""]
        let (old, pin) = pins.digits(of: step)
        (action["pin"], action["oldPin"], action["biometrics"], action["userInput"]) = (pin, old, step.biometrics, step.userInput)
        if let name = step.account {
            let flow = try await api.call(.GET, "/api/phones/\(id(step.phone))")["flow"] as? [String: Any]
            let info = (flow?["currentInteraction"] as? [String: Any])?["confirmSessionInfo"] as? [String: Any]
            let offered = info?["accounts"] as? [[String: Any]] ?? []
            action["account"] = offered.first { $0["displayName"] as? String == name }?["id"] as? String ?? name
        }
        return action
    }

    /// The oldest push waiting on the phone, waiting for one to come.
    private func oldestPush(of phone: String) async throws -> String {
        try await waiting("a push to arrive") {
            let messages = try await api.call(.GET, "/api/phones/\(phone)/inbox")["messages"] as? [[String: Any]]
            return messages?.first?["id"] as? String
        }
    }

    /// How the session ended, waiting for it to end; or why it did not.
    private func outcome(of session: String) async -> String {
        let finals: Set = ["enrolled", "loggedin", "signed", "completed", "failed", "canceled", "expired"]
        do {
            return try await waiting("the session to end") {
                let status = try await api.call(.GET, "/api/backend/sessions/\(session)")["status"] as? String
                return status.flatMap { finals.contains($0) ? $0 : nil }
            }
        } catch let failure as LoadFailure {
            return "\(failure.code): \(failure.detail)"
        } catch {
            return "\(error)"
        }
    }

    /// `look`'s first answer, looking again every 50 ms until `patience` has passed.
    private func waiting<T>(_ what: String, _ look: () async throws -> T?) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while true {
            if let found = try await look() { return found }
            guard clock.now < deadline else { throw LoadFailure("TIMEOUT", "waited \(patience) for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// One step as the replay prints it: `act phone 1 inputSecondFactor (pin: wrong)`.
    static func describe(_ step: ScenarioStep) -> String {
        let details: [String?] = [
            step.phone, step.session, step.name.map { "\"\($0)\"" }, step.action, step.type, step.user, step.fault, step.outcome,
            step.pin.map { "(pin: \($0.rawValue))" }, step.biometrics.map { "(biometrics: \($0))" },
            step.seconds.map { "\(Int64(exactly: $0).map(String.init) ?? "\($0)") s" },
            step.fields?["type"]?.text, step.fields?["userId"]?.text, step.pushTo.map { "to \($0)" },
        ]
        return ([step.do.rawValue] + details.compactMap { $0 }).joined(separator: " ")
    }
}

/// The first step whose answer differs from the recording's.
public struct ReplayDifference: Error, CustomStringConvertible {
    public let step: Int
    public let what: String
    public let expected: String
    public let actual: String

    public var description: String { "step \(step) (\(what)) differs:\n  expected: \(expected)\n  actual:   \(actual)" }
}
