import Foundation
import WireJSON

/// A walk through AuthPhone as it was recorded, in the words a replay needs and no more: what was
/// done, in order, and what came of it. Ids and times are names (`phone 1`, `session 2`), so a
/// fresh server replays it; a PIN is its part in the flow (`PinRole`), never its digits. The
/// shape is versioned by `schema` and written out in docs/recording.md.
public struct Scenario: Codable, Sendable, Equatable {
    /// The one schema this version reads and writes.
    public static let currentSchema = "authphone-scenario/1"

    public var schema: String
    public var name: String
    /// `manual` when the walk's server kept a manual clock: its replay needs `serve --clock manual`.
    public var clock: ClockMode
    /// The `authphone serve` arguments the walk's server ran with that its outcomes depend on
    /// (`--clock manual`, `--session-lifetime 60`): a replay's server needs them too.
    public var serve: [String]
    public var steps: [ScenarioStep]

    public enum ClockMode: String, Codable, Sendable {
        case system, manual
    }

    public init(name: String, clock: ClockMode, serve: [String] = [], steps: [ScenarioStep] = []) {
        schema = Self.currentSchema
        self.name = name
        self.clock = clock
        self.serve = serve
        self.steps = steps
    }

    /// `serve` may be left out of a file written by hand: the walk then needs nothing of its server.
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        schema = try fields.decode(String.self, forKey: .schema)
        name = try fields.decode(String.self, forKey: .name)
        clock = try fields.decode(ClockMode.self, forKey: .clock)
        serve = try fields.decodeIfPresent([String].self, forKey: .serve) ?? []
        steps = try fields.decode([ScenarioStep].self, forKey: .steps)
    }

    /// A scenario file as `authphone replay` reads one: its schema checked before anything runs,
    /// and every step's fields (`ScenarioStep.check`), so a bad file is refused whole, naming
    /// what is wrong, rather than half replayed.
    public static func read(_ data: Data) throws(ScenarioError) -> Scenario {
        let scenario: Scenario
        do { scenario = try WireJSON.decoder().decode(Scenario.self, from: data) } catch {
            throw ScenarioError("the file is not a scenario: \(WireJSON.describe(error))")
        }
        guard scenario.schema == currentSchema else {
            throw ScenarioError("its schema is '\(scenario.schema)'; this AuthPhone reads '\(currentSchema)'")
        }
        for (index, step) in scenario.steps.enumerated() {
            if let wrong = step.missingField { throw ScenarioError("step \(index + 1) (\(step.do.rawValue)) has no '\(wrong)'") }
        }
        return scenario
    }

    /// The scenario as its file: keys sorted, so two recordings of one walk compare line by line.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// One thing done in a walk, and what came of it. Which fields a step has depends on what it
/// does (`missingField` says which it needs); the others are absent from its JSON.
public struct ScenarioStep: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A new phone, `phone`, called `name`: made in the walk, or there when the recording began.
        case createPhone
        /// `POST /api/backend/sessions` with `fields`; pushed to `pushTo` where the walk chose a phone.
        case startSession
        /// A running `session` pushed to `phone`.
        case pushSession
        /// `phone` handed a `session`'s code (`via` qr or link), or a `code` of no session.
        case scan
        /// `phone`'s oldest push opened, as a tap on its notification.
        case openPush
        /// The user's input on `phone`'s screen: `action`, with its `account`, `pin`, `oldPin`,
        /// `biometrics`, `userInput`.
        case act
        /// A flow `phone` starts from its own menu: `type` CHANGE_PIN, ADD_BIOMETRICS, REMOVE_BIOMETRICS.
        case startFlow
        /// One more fingerprint or face enrolled in `phone`'s simulated sensor.
        case enrolBiometric
        /// A push sent through the push service's FCM API from a page (the console's composer):
        /// its `message`, to `pushTo` where its token was a phone's.
        case sendPush
        /// Everything erased (`POST /api/reset`, the stage's *Reset demo*).
        case reset
        /// The administrator unblocks `user`'s PIN.
        case unblockPin
        /// A fault, `fault`, added with `spec` (the body of `POST /api/faults`).
        case addFault
        case removeFault
        case clearFaults
        /// The server's clock moved `seconds` on.
        case advanceClock
        /// What the walk saw: `session` ended as `outcome`. A replay waits for it.
        case sessionOutcome
    }

    public var `do`: Kind
    public var phone: String?
    public var name: String?
    public var session: String?
    public var fields: [String: OpenJSON]?
    public var pushTo: String?
    public var via: String?
    public var code: String?
    public var action: String?
    public var type: String?
    public var account: String?
    public var pin: PinRole?
    public var oldPin: PinRole?
    public var biometrics: String?
    public var userInput: String?
    public var user: String?
    public var fault: String?
    public var spec: [String: OpenJSON]?
    public var message: [String: OpenJSON]?
    public var seconds: Double?
    public var outcome: String?
    /// What the step answered when it was recorded, which a replay must answer again.
    public var expect: Expectation?

    public init(_ kind: Kind) { self.do = kind }

    /// The first field this kind of step needs and lacks.
    var missingField: String? {
        let needed: [(String, Any?)] =
            switch self.do {
            case .createPhone: [("phone", phone), ("name", name)]
            case .startSession: [("fields", fields)]
            case .pushSession: [("session", session), ("phone", phone)]
            case .scan: [("phone", phone), (session == nil ? "code" : "via", session == nil ? code : via)]
            case .openPush: [("phone", phone)]
            case .act: [("phone", phone), ("action", action)]
            case .startFlow: [("phone", phone), ("type", type)]
            case .enrolBiometric: [("phone", phone)]
            case .sendPush: [("message", message)]
            case .unblockPin: [("user", user)]
            case .addFault: [("fault", fault), ("spec", spec)]
            case .removeFault: [("fault", fault)]
            case .clearFaults, .reset: []
            case .advanceClock: [("seconds", seconds)]
            case .sessionOutcome: [("session", session), ("outcome", outcome)]
            }
        return needed.first { $0.1 == nil }?.0
    }
}

/// What a PIN was to the flow it was typed into.
public enum PinRole: String, Codable, Sendable {
    /// The phone's PIN as it stands.
    case enrolled
    /// Any PIN but that one.
    case wrong
    /// A PIN being set: at enrolment, or the new one of a change. The phone's PIN from then on.
    case new
}

/// A step's answer: refused with `error`, or the phone's flow as it stood after it (`flow`),
/// or nothing more than done.
public struct Expectation: Codable, Sendable, Equatable {
    public var error: String?
    public var flow: FlowSeen?

    public init(error: String? = nil, flow: FlowSeen? = nil) {
        self.error = error
        self.flow = flow
    }

    /// As one line: `refused UNEXPECTED_INPUT`, `WAIT_FOR_INPUT VERIFY_SECOND_FACTOR PIN_FAIL`, `done`.
    public var summary: String {
        if let error { return "refused \(error)" }
        return flow?.summary ?? "done"
    }
}

/// A flow as far as a walk can count on it: its state, what it waits for, how the last input
/// went and the error it ended with. Its ids and texts are left out: they differ on every run.
public struct FlowSeen: Codable, Sendable, Equatable {
    public var state: String
    public var interaction: String?
    public var result: String?
    public var error: String?

    public init(state: String, interaction: String? = nil, result: String? = nil, error: String? = nil) {
        self.state = state
        self.interaction = interaction
        self.result = result
        self.error = error
    }

    /// The fields of a flow as the API writes one that a walk keeps; the rest is not read.
    public struct Wire: Decodable, Sendable {
        struct Typed: Decodable, Sendable { let type: String }
        struct Coded: Decodable, Sendable { let code: String }
        let state: String
        let currentInteraction: Typed?
        let previousInteractionResult: Typed?
        let error: Coded?
    }

    public init(_ wire: Wire) {
        self.init(
            state: wire.state, interaction: wire.currentInteraction?.type, result: wire.previousInteractionResult?.type,
            error: wire.error?.code)
    }

    /// `DONE`, `WAIT_FOR_INPUT VERIFY_SECOND_FACTOR PIN_FAIL`, `ERROR PIN_BLOCKED`.
    public var summary: String {
        [state, interaction, result == "SUCCESS" ? nil : result, error].compactMap { $0 }.joined(separator: " ")
    }
}

/// A scenario that cannot be read or replayed, in words.
public struct ScenarioError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
