import Foundation
import WireJSON

/// A recording's state: the steps so far, and the names it gave the server's ids. Fed one
/// `WalkEvent` at a time by whoever saw it happen, it does no I/O: the names, the PINs' roles and
/// the sessions still open are decided here, and tested here.
public struct WalkRecorder: Sendable {
    /// Steps a recording holds at most: a walk by hand takes dozens; a script left recording
    /// stops here rather than fill the server's memory.
    public static let maximumSteps = 1_000
    /// Bytes of JSON a recording holds at most: a step keeps the fields a request sent, and a
    /// script posting the largest bodies the server takes would otherwise keep 64 MiB a recording.
    public static let maximumBytes = 1 << 20

    public private(set) var scenario: Scenario
    /// Whether it stopped taking steps at `maximumSteps` or `maximumBytes`.
    public private(set) var isFull = false
    private var bytes = 0

    private var phones: [String: String] = [:]
    private var phonesByToken: [String: String] = [:]
    private var sessions: [String: String] = [:]
    private var sessionsByCode: [String: (session: String, via: String)] = [:]
    private var faults: [String: String] = [:]
    /// Sessions named here that have not ended, oldest first: their outcome is still to be seen.
    public private(set) var openSessions: [String] = []

    public init(name: String, clock: Scenario.ClockMode, serve: [String] = []) {
        scenario = Scenario(name: name, clock: clock, serve: serve)
    }

    public mutating func rename(_ name: String) { scenario.name = name }

    /// Records `event`; an event about something the recording never saw made (a phone created
    /// before it began, say, is named when it began) is recorded with the server's own id.
    public mutating func record(_ event: WalkEvent) {
        switch event {
        case .phoneCreated(let id, let name, let pushToken):
            let phone = Self.name("phone", count: phones.count, into: &phones, id: id)
            phonesByToken[pushToken] = id
            var step = ScenarioStep(.createPhone)
            (step.phone, step.name) = (phone, name)
            append(step)
        case .sessionStarted(var fields, let started, let refusal):
            var step = ScenarioStep(.startSession)
            if case .string(let token)? = fields.removeValue(forKey: "pushToken") { step.pushTo = phoneName(byToken: token) }
            step.fields = fields
            if let started {
                step.session = Self.name("session", count: sessions.count, into: &sessions, id: started.id)
                sessionsByCode[started.qrText] = (step.session!, "qr")
                sessionsByCode[started.deepLink] = (step.session!, "link")
                openSessions.append(started.id)
            }
            append(step, refusal: refusal)
        case .sessionPushed(let session, let pushToken, let refusal):
            var step = ScenarioStep(.pushSession)
            (step.session, step.phone) = (sessions[session] ?? session, phoneName(byToken: pushToken))
            append(step, refusal: refusal)
        case .codeScanned(let phone, let text, let flow, let refusal):
            var step = ScenarioStep(.scan)
            step.phone = phoneName(phone)
            if let known = sessionsByCode[text] { (step.session, step.via) = known } else { step.code = text }
            append(step, flow: flow, refusal: refusal)
        case .pushOpened(let phone, let flow, let refusal):
            var step = ScenarioStep(.openPush)
            step.phone = phoneName(phone)
            append(step, flow: flow, refusal: refusal)
        case .acted(let phone, let input, let before, let flow, let refusal):
            var step = ScenarioStep(.act)
            step.phone = phoneName(phone)
            (step.action, step.account, step.biometrics, step.userInput) = (input.action, input.account, input.biometrics, input.userInput)
            if input.typedPin { step.pin = Self.role(ofPinIn: input, before: before, after: flow, refusal: refusal) }
            if input.typedOldPin { step.oldPin = Self.role(ofCheckedPinAfter: flow, refusal: refusal) }
            append(step, flow: flow, refusal: refusal)
        case .flowStarted(let phone, let type, let flow, let refusal):
            var step = ScenarioStep(.startFlow)
            (step.phone, step.type) = (phoneName(phone), type)
            append(step, flow: flow, refusal: refusal)
        case .biometricEnrolled(let phone, let refusal):
            var step = ScenarioStep(.enrolBiometric)
            step.phone = phoneName(phone)
            append(step, refusal: refusal)
        case .pushSent(var message, let refusal):
            var step = ScenarioStep(.sendPush)
            if case .string(let token)? = message["token"], phonesByToken[token] != nil {
                message["token"] = nil
                step.pushTo = phoneName(byToken: token)
            }
            step.message = message
            append(step, refusal: refusal)
        case .pinUnblocked(let user, let refusal):
            var step = ScenarioStep(.unblockPin)
            step.user = user
            append(step, refusal: refusal)
        case .faultAdded(var spec, let id, let refusal):
            var step = ScenarioStep(.addFault)
            if case .string(let phone)? = spec["phoneId"] { spec["phoneId"] = .string(phoneName(phone)) }
            step.spec = spec
            if let id { step.fault = Self.name("fault", count: faults.count, into: &faults, id: id) }
            append(step, refusal: refusal)
        case .faultRemoved(let id, let refusal):
            var step = ScenarioStep(.removeFault)
            step.fault = faults[id] ?? id
            append(step, refusal: refusal)
        case .faultsCleared:
            append(ScenarioStep(.clearFaults))
        case .reset:
            append(ScenarioStep(.reset))
        case .clockAdvanced(let seconds, let refusal):
            var step = ScenarioStep(.advanceClock)
            step.seconds = seconds
            append(step, refusal: refusal)
        case .sessionEnded(let id, let outcome):
            guard let index = openSessions.firstIndex(of: id) else { return }
            openSessions.remove(at: index)
            var step = ScenarioStep(.sessionOutcome)
            (step.session, step.outcome) = (sessions[id], outcome)
            append(step)
        }
    }

    private mutating func append(_ step: ScenarioStep, flow: FlowSeen? = nil, refusal: String? = nil) {
        guard !isFull else { return }
        var step = step
        if refusal != nil || flow != nil { step.expect = Expectation(error: refusal, flow: refusal == nil ? flow : nil) }
        scenario.steps.append(step)
        bytes += (try? JSONEncoder().encode(step).count) ?? 0
        isFull = scenario.steps.count >= Self.maximumSteps || bytes >= Self.maximumBytes
    }

    private func phoneName(_ id: String) -> String { phones[id] ?? id }

    private func phoneName(byToken token: String) -> String { phonesByToken[token].map { phoneName($0) } ?? token }

    /// The next name of `kind` (`phone 1`, `phone 2`, …) for `id`, or the one it has.
    private static func name(_ kind: String, count: Int, into names: inout [String: String], id: String) -> String {
        if let known = names[id] { return known }
        let name = "\(kind) \(count + 1)"
        names[id] = name
        return name
    }

    /// A PIN typed where the flow set one is the new PIN; one it checked is the enrolled PIN
    /// when the flow took it, and a wrong one when it did not.
    static func role(ofPinIn input: ActInput, before: FlowSeen?, after: FlowSeen?, refusal: String?) -> PinRole {
        if input.typedOldPin || before?.interaction == "SET_SECOND_FACTOR" { return .new }
        return role(ofCheckedPinAfter: after, refusal: refusal)
    }

    static func role(ofCheckedPinAfter flow: FlowSeen?, refusal: String?) -> PinRole {
        refusal == nil && flow?.result != "PIN_FAIL" && flow?.error != "PIN_BLOCKED" ? .enrolled : .wrong
    }
}

/// Something a walk did, with the server's ids, and how it went (`refusal`: the error's code).
public enum WalkEvent: Sendable {
    case phoneCreated(id: String, name: String, pushToken: String)
    /// `fields` as the request sent them (a `pushToken` among them names the phone it went to).
    case sessionStarted(fields: [String: OpenJSON], started: StartedSession?, refusal: String?)
    case sessionPushed(session: String, pushToken: String, refusal: String?)
    case codeScanned(phone: String, text: String, flow: FlowSeen?, refusal: String?)
    case pushOpened(phone: String, flow: FlowSeen?, refusal: String?)
    /// `before`: the flow the input was typed into.
    case acted(phone: String, input: ActInput, before: FlowSeen?, flow: FlowSeen?, refusal: String?)
    /// `type`: the flow the phone started from its menu.
    case flowStarted(phone: String, type: String, flow: FlowSeen?, refusal: String?)
    case biometricEnrolled(phone: String, refusal: String?)
    /// `message`: the FCM message sent (`{"token", "data", "notification", …}`); `refusal`: FCM's code.
    case pushSent(message: [String: OpenJSON], refusal: String?)
    case pinUnblocked(user: String, refusal: String?)
    case faultAdded(spec: [String: OpenJSON], id: String?, refusal: String?)
    case faultRemoved(id: String, refusal: String?)
    case faultsCleared
    case reset
    case clockAdvanced(seconds: Double, refusal: String?)
    case sessionEnded(id: String, outcome: String)
}

/// A session as it started: what a later scan of its code is recognised by.
public struct StartedSession: Sendable {
    public let id: String
    public let qrText: String
    public let deepLink: String

    public init(id: String, qrText: String, deepLink: String) {
        (self.id, self.qrText, self.deepLink) = (id, qrText, deepLink)
    }
}

/// The user's input on a screen, without its PINs' digits: only whether they were typed.
public struct ActInput: Sendable {
    public let action: String
    public let account: String?
    public let biometrics: String?
    public let userInput: String?
    public let typedPin: Bool
    public let typedOldPin: Bool

    public init(action: String, account: String?, biometrics: String?, userInput: String?, typedPin: Bool, typedOldPin: Bool) {
        (self.action, self.account, self.biometrics, self.userInput) = (action, account, biometrics, userInput)
        (self.typedPin, self.typedOldPin) = (typedPin, typedOldPin)
    }
}
