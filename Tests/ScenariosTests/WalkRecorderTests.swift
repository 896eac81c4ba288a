import AuthFlow
import Foundation
import Scenarios
import Testing
import WireJSON

/// The recorder fed events as the routes feed it, with no server: what it names, what it keeps
/// of a PIN, and which sessions it still waits on.
@Suite struct WalkRecorderTests {
    static let waitingForPin = FlowSeen(state: "WAIT_FOR_INPUT", interaction: "VERIFY_SECOND_FACTOR", result: "SUCCESS")
    static let settingPin = FlowSeen(state: "WAIT_FOR_INPUT", interaction: "SET_SECOND_FACTOR", result: "SUCCESS")
    static func pin(old: Bool = false) -> ActInput {
        ActInput(action: "inputSecondFactor", account: nil, biometrics: nil, userInput: nil, typedPin: true, typedOldPin: old)
    }

    /// A walk with one phone and one enrolment started, as most begin.
    static func started() -> WalkRecorder {
        var walk = WalkRecorder(name: "Walk", clock: .manual, serve: ["--clock", "manual", "--session-lifetime", "60"])
        walk.record(.phoneCreated(id: "P-1", name: "Stage phone", pushToken: "token-1"))
        walk.record(
            .sessionStarted(
                fields: ["type": .string("enrol"), "userId": .string("alice")],
                started: StartedSession(id: "S-1", qrText: "QR-1", deepLink: "authphone://oob?x=1"), refusal: nil))
        return walk
    }

    @Test func idsBecomeNamesInTheOrderTheyAppear() {
        var walk = Self.started()
        walk.record(.phoneCreated(id: "P-2", name: "Second", pushToken: "token-2"))
        walk.record(.sessionStarted(fields: ["type": .string("login"), "pushToken": .string("token-2")], started: nil, refusal: "USER_NOT_ENROLLED"))
        walk.record(.codeScanned(phone: "P-2", text: "authphone://oob?x=1", flow: nil, refusal: nil))
        walk.record(.faultAdded(spec: ["target": .string("phone"), "phoneId": .string("P-2")], id: "F-9", refusal: nil))
        walk.record(.faultRemoved(id: "F-9", refusal: nil))
        let steps = walk.scenario.steps
        #expect(steps.map(\.phone) == ["phone 1", nil, "phone 2", nil, "phone 2", nil, nil])
        #expect(steps[1].session == "session 1")
        // a session pushed to a phone names the phone, not its token, and keeps its refusal
        #expect(steps[3].pushTo == "phone 2" && steps[3].fields?["pushToken"] == nil && steps[3].session == nil)
        #expect(steps[3].expect == Expectation(error: "USER_NOT_ENROLLED"))
        // a session's deep link is recognised as that session's code, by link
        #expect(steps[4].session == "session 1" && steps[4].via == "link" && steps[4].code == nil)
        #expect(steps[5].spec?["phoneId"] == .string("phone 2") && steps[5].fault == "fault 1")
        #expect(steps[6].fault == "fault 1")
    }

    @Test func aPushToAPhonesTokenNamesThePhone() {
        var walk = Self.started()
        let notification: OpenJSON = .object(["title": .string("Hi")])
        walk.record(.pushSent(message: ["token": .string("token-1"), "notification": notification], refusal: nil))
        walk.record(.pushSent(message: ["token": .string("stranger")], refusal: "UNREGISTERED"))
        let steps = walk.scenario.steps.suffix(2)
        #expect(steps.first?.pushTo == "phone 1" && steps.first?.message == ["notification": notification])
        #expect(steps.last?.pushTo == nil && steps.last?.message == ["token": .string("stranger")])
        #expect(steps.last?.expect == Expectation(error: "UNREGISTERED"))
    }

    @Test func aResetIsAStepAndTheWalkGoesOnWithNewNames() {
        var walk = Self.started()
        walk.record(.reset)
        walk.record(.phoneCreated(id: "P-9", name: "Stage phone", pushToken: "token-9"))
        let steps = walk.scenario.steps.suffix(2)
        #expect(steps.map(\.do) == [.reset, .createPhone])
        #expect(steps.last?.phone == "phone 2", "a phone made after the reset is a new one")
        #expect(walk.openSessions == ["S-1"], "a session the reset erased ends unseen, not as an outcome")
    }

    @Test func aCodeOfNoSessionIsKeptAsItIs() {
        var walk = Self.started()
        walk.record(.codeScanned(phone: "P-1", text: "otpauth://totp/x?secret=ABC", flow: nil, refusal: nil))
        #expect(walk.scenario.steps.last?.code == "otpauth://totp/x?secret=ABC")
        #expect(walk.scenario.steps.last?.session == nil)
    }

    @Test func aPinIsItsRoleInTheFlowNeverItsDigits() {
        var walk = Self.started()
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.settingPin, flow: FlowSeen(state: "DONE"), refusal: nil))
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.waitingForPin, flow: FlowSeen(state: "DONE"), refusal: nil))
        let failed = FlowSeen(state: "WAIT_FOR_INPUT", interaction: "VERIFY_SECOND_FACTOR", result: "PIN_FAIL")
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.waitingForPin, flow: failed, refusal: nil))
        let blocked = FlowSeen(state: "ERROR", result: "PIN_FAIL", error: "PIN_BLOCKED")
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.waitingForPin, flow: blocked, refusal: nil))
        // a change: the old PIN checked, the new one set
        walk.record(.acted(phone: "P-1", input: Self.pin(old: true), before: Self.waitingForPin, flow: FlowSeen(state: "DONE"), refusal: nil))
        let roles = walk.scenario.steps.compactMap { step in step.pin.map { (step.oldPin, $0) } }
        #expect(roles.map(\.1) == [.new, .enrolled, .wrong, .wrong, .new])
        #expect(roles.map(\.0) == [nil, nil, nil, nil, .enrolled])
        #expect(walk.scenario.steps[5].expect == Expectation(flow: blocked))
    }

    @Test func aPinChangeFromThePhonesMenuIsAWalkOfItsOwn() {
        var walk = Self.started()
        walk.record(.flowStarted(phone: "P-1", type: "CHANGE_PIN", flow: Self.waitingForPin, refusal: nil))
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.waitingForPin, flow: Self.settingPin, refusal: nil))
        walk.record(.acted(phone: "P-1", input: Self.pin(), before: Self.settingPin, flow: FlowSeen(state: "DONE"), refusal: nil))
        walk.record(.biometricEnrolled(phone: "P-1", refusal: nil))
        let steps = walk.scenario.steps.suffix(4)
        #expect(steps.map(\.do) == [.startFlow, .act, .act, .enrolBiometric])
        #expect(steps.first?.type == "CHANGE_PIN" && steps.first?.expect == Expectation(flow: Self.waitingForPin))
        #expect(steps.compactMap(\.pin) == [.enrolled, .new])
        #expect(steps.allSatisfy { $0.phone == "phone 1" })
    }

    @Test func aSessionEndsOnceAndOnlyOneTheWalkStarted() {
        var walk = Self.started()
        #expect(walk.openSessions == ["S-1"])
        walk.record(.sessionEnded(id: "S-1", outcome: "enrolled"))
        walk.record(.sessionEnded(id: "S-1", outcome: "enrolled"))
        walk.record(.sessionEnded(id: "S-other", outcome: "expired"))
        #expect(walk.openSessions.isEmpty)
        #expect(walk.scenario.steps.filter { $0.do == .sessionOutcome }.map(\.session) == ["session 1"])
    }

    @Test func itStopsTakingStepsWhenFull() {
        var walk = Self.started()
        for _ in 0..<WalkRecorder.maximumSteps { walk.record(.faultsCleared) }
        #expect(walk.isFull)
        #expect(walk.scenario.steps.count == WalkRecorder.maximumSteps)
    }

    @Test func itStopsTakingStepsPastAMebibyte() {
        var walk = Self.started()
        let large: [String: OpenJSON] = ["type": .string("login"), "announceInfo": .object(["Note": .string(String(repeating: "x", count: 60_000))])]
        for _ in 0..<20 { walk.record(.sessionStarted(fields: large, started: nil, refusal: nil)) }
        #expect(walk.isFull)
        #expect(walk.scenario.steps.count == 2 + 18)  // 18 × 60 kB passes 1 MiB
    }

    @Test func theReplaysPinsAreOnesThePolicyTakes() throws {
        let policy = try PinPolicy(length: 6)
        var book = PinBook()
        let first = book.digits(.new, on: "phone 1")
        #expect(book.digits(.enrolled, on: "phone 1") == first)
        #expect(book.digits(.wrong, on: "phone 1") != first)
        let second = book.digits(.new, on: "phone 1")
        #expect(second != first && book.digits(.enrolled, on: "phone 1") == second)
        for pin in [first, second, book.digits(.new, on: "phone 2")] { try policy.validate(Array(pin.utf8)) }
    }

    @Test func aScenarioFileIsCheckedBeforeItRuns() throws {
        let walk = Self.started()
        let read = try Scenario.read(try walk.scenario.json())
        #expect(read == walk.scenario)
        #expect(throws: ScenarioError("its schema is 'authphone-scenario/9'; this AuthPhone reads 'authphone-scenario/1'")) {
            try Scenario.read(Data(#"{"schema": "authphone-scenario/9", "name": "x", "clock": "system", "steps": []}"#.utf8))
        }
        #expect(throws: ScenarioError("step 1 (scan) has no 'phone'")) {
            try Scenario.read(Data(#"{"schema": "authphone-scenario/1", "name": "x", "clock": "system", "steps": [{"do": "scan"}]}"#.utf8))
        }
        #expect(throws: ScenarioError.self) { try Scenario.read(Data("[1]".utf8)) }
    }
}
