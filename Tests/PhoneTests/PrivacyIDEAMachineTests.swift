import AuthFlow
import Foundation
import PrivacyIDEA
import Testing

@testable import Phone

/// One phone's privacyIDEA requests as a table: events in, what the phone must do (or the
/// refusal) out, and the screen they leave, with the other open challenges listed on it; no I/O,
/// and time as numbers of seconds.
@Suite struct PrivacyIDEAMachineTests {
    enum Step: Sendable, CustomStringConvertible {
        /// A verified challenge of token PIPU1 arrives, `at` seconds in.
        case arrive(String, at: Double = 0)
        /// An enrolment code is scanned; `trusted`: its server took a registration before.
        case scan(trusted: Bool)
        /// A container code is scanned; `passphrase`: it asks for one.
        case scanContainer(trusted: Bool, passphrase: Bool)
        case trust(Bool)
        /// The user answers the challenge `nonce` names (nil: the one on screen).
        case answer(String?, accept: Bool = true, at: Double = 0)
        /// The answer to `nonce` was taken by privacyIDEA, or failed.
        case answered(String, failed: Bool = false)
        case registered(failed: Bool = false)
        case retrying(attempt: Int)
        /// A challenge `nonce` did not verify.
        case forged(String)
        case look(at: Double)

        var description: String {
            switch self {
            case .arrive(let nonce, let at): "arrive \(nonce) @\(Int(at))"
            case .scan(let trusted): trusted ? "scan trusted" : "scan"
            case .scanContainer(let trusted, let passphrase): "scan container\(trusted ? " trusted" : "")\(passphrase ? " asking" : "")"
            case .trust(let accept): "trust \(accept)"
            case .answer(let nonce, let accept, let at): "\(accept ? "accept" : "decline") \(nonce ?? "screen") @\(Int(at))"
            case .answered(let nonce, let failed): failed ? "\(nonce) failed" : "\(nonce) answered"
            case .registered(let failed): failed ? "registration failed" : "registered"
            case .retrying(let attempt): "retrying after \(attempt)"
            case .forged(let nonce): "forged \(nonce)"
            case .look(let at): "look @\(Int(at))"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        /// Each step's outcome: `register`, `send <nonce>`, `-` for nothing, or the refusal's code.
        let outcomes: [String]
        /// The screen: `<nonce or ENROLMENT> <state>[ <outcome or error code>]`.
        let screen: String?
        /// The other open challenges listed on it, newest first.
        var waiting: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "the newest challenge is on screen and the older listed", steps: [.arrive("A"), .arrive("B", at: 5)],
            outcomes: ["-", "-"], screen: "B WAIT_FOR_INPUT", waiting: ["A"]),
        Case(
            name: "an answer with no nonce answers the one on screen, and only it",
            steps: [.arrive("A"), .arrive("B"), .answer(nil), .answered("B")],
            outcomes: ["-", "-", "send B", "-"], screen: "B DONE ACCEPTED", waiting: ["A"]),
        Case(
            name: "a listed challenge is answered by its nonce",
            steps: [.arrive("A"), .arrive("B"), .answer("A", accept: false), .answered("A")],
            outcomes: ["-", "-", "send A", "-"], screen: "A DONE DECLINED", waiting: ["B"]),
        Case(
            name: "an answered challenge is not answered again",
            steps: [.arrive("A"), .answer("A"), .answer("A"), .answered("A"), .answer("A"), .answer(nil)],
            outcomes: ["-", "send A", "NO_PRIVACYIDEA_REQUEST", "-", "NO_PRIVACYIDEA_REQUEST", "NO_PRIVACYIDEA_REQUEST"],
            screen: "A DONE ACCEPTED"),
        Case(
            name: "a failed answer closes its challenge with the error",
            steps: [.arrive("A"), .answer(nil), .answered("A", failed: true), .answer("A")],
            outcomes: ["-", "send A", "-", "NO_PRIVACYIDEA_REQUEST"], screen: "A ERROR PRIVACYIDEA_REFUSED"),
        Case(
            name: "one arriving while an answer is sent is listed, not shown",
            steps: [.arrive("A"), .answer(nil), .arrive("B"), .answered("A")],
            outcomes: ["-", "send A", "-", "-"], screen: "A DONE ACCEPTED", waiting: ["B"]),
        Case(
            name: "a challenge delivered again changes nothing",
            steps: [.arrive("A"), .arrive("B"), .arrive("A", at: 10)], outcomes: ["-", "-", "-"], screen: "B WAIT_FOR_INPUT", waiting: ["A"]),
        Case(
            name: "an expired challenge goes, and its answer is refused",
            steps: [.arrive("A"), .arrive("B", at: 100), .answer("A", at: 121)],
            outcomes: ["-", "-", "CHALLENGE_EXPIRED"], screen: "B WAIT_FOR_INPUT"),
        Case(
            name: "an expired challenge on screen shows why it went",
            steps: [.arrive("A"), .look(at: 121), .answer(nil, at: 121)],
            outcomes: ["-", "-", "NO_PRIVACYIDEA_REQUEST"], screen: "A ERROR CHALLENGE_EXPIRED"),
        Case(
            name: "a challenge at the end of its lifetime is still answered",
            steps: [.arrive("A"), .answer(nil, at: 120)], outcomes: ["-", "send A"], screen: "A PROCESSING"),
        Case(
            name: "an untrusted server is asked about, then registered",
            steps: [.scan(trusted: false), .trust(true), .registered()],
            outcomes: ["-", "register", "-"], screen: "ENROLMENT DONE ENROLLED"),
        Case(
            name: "a trusted server is registered at once",
            steps: [.scan(trusted: true), .retrying(attempt: 1), .registered(failed: true)],
            outcomes: ["register", "-", "-"], screen: "ENROLMENT ERROR PRIVACYIDEA_REFUSED"),
        Case(
            name: "a container from a trusted server that asks for no passphrase is registered at once",
            steps: [.scanContainer(trusted: true, passphrase: false), .registered()], outcomes: ["register", "-"],
            screen: "CONTAINER DONE ENROLLED"),
        Case(
            name: "a container that asks for a passphrase is asked about, even from a trusted server",
            steps: [.scanContainer(trusted: true, passphrase: true), .arrive("A"), .trust(true), .registered(failed: true)],
            outcomes: ["-", "-", "register", "-"], screen: "CONTAINER ERROR PRIVACYIDEA_REFUSED", waiting: ["A"]),
        Case(
            name: "a cancelled enrolment registers nothing", steps: [.scan(trusted: false), .trust(false), .trust(true)],
            outcomes: ["-", "-", "NO_PRIVACYIDEA_REQUEST"], screen: "ENROLMENT DONE CANCELLED"),
        Case(
            name: "an enrolment holds the screen: challenges meanwhile are listed",
            steps: [.scan(trusted: false), .arrive("A"), .scan(trusted: true), .trust(true), .scan(trusted: false), .registered()],
            outcomes: ["-", "-", "PRIVACYIDEA_REQUEST_OPEN", "register", "PRIVACYIDEA_REQUEST_OPEN", "-"],
            screen: "ENROLMENT DONE ENROLLED", waiting: ["A"]),
        Case(
            name: "a scan while a challenge waits goes on screen; the challenge stays open",
            steps: [.arrive("A"), .scan(trusted: false), .answer("A")],
            outcomes: ["-", "-", "send A"], screen: "A PROCESSING"),
        Case(
            name: "a forged challenge is shown only where nothing waits",
            steps: [.forged("X"), .arrive("A"), .forged("Y")],
            outcomes: ["-", "-", "-"], screen: "A WAIT_FOR_INPUT"),
        Case(
            name: "a forged challenge takes the place of an ended request", steps: [.arrive("A"), .answer(nil), .answered("A"), .forged("X")],
            outcomes: ["-", "send A", "-", "-"], screen: "X ERROR PUSH_CHALLENGE_FORGED"),
    ]

    @Test(arguments: cases) func requests(_ table: Case) throws {
        var machine = PrivacyIDEAMachine()
        var outcomes: [String] = []
        for step in table.steps {
            do throws(PhoneError) {
                outcomes.append(Self.describe(try Self.apply(step, to: &machine)))
            } catch {
                outcomes.append(error.code)
            }
        }
        #expect(outcomes == table.outcomes, "\(table.steps)")
        #expect(machine.shown.map(Self.describe) == table.screen)
        #expect(machine.shown?.waiting?.compactMap(\.nonce) ?? [] == table.waiting)
    }

    static let start = Date(timeIntervalSince1970: 1_000_000)
    static let enrolment = try! PushEnrolment(
        text: "otpauth://pipush/PIPU2?url=http%3A//127.0.0.1%3A5001/ttype/push&ttl=10&issuer=privacyIDEA&v=1&serial=PIPU2"
            + "&enrollment_credential=c&sslverify=1")

    static let container =
        "pia://container/SMPH1?issuer=privacyIDEA&ttl=10&nonce=n1&time=1970-01-12T13%3A46%3A40%2B00%3A00&url=http%3A//127.0.0.1%3A5001"
        + "&serial=SMPH1&key_algorithm=secp384r1&hash_algorithm=SHA256&ssl_verify=True&passphrase=&send_passphrase=False"

    static func apply(_ step: Step, to machine: inout PrivacyIDEAMachine) throws(PhoneError) -> PrivacyIDEAMachine.Action {
        let refused = FlowError(code: "PRIVACYIDEA_REFUSED", message: "privacyIDEA refused")
        switch step {
        case .arrive(let nonce, let at):
            let (challenge, request) = Self.challenge(nonce)
            machine.arrived(.push(challenge), shown: request, at: start.addingTimeInterval(at))
        case .scan(let trusted): return try machine.scanned(.pushToken(enrolment), trusted: trusted)
        case .scanContainer(let trusted, let passphrase):
            let code = passphrase ? container.replacingOccurrences(of: "&passphrase=&", with: "&passphrase=Your%20word&") : container
            return try machine.scanned(.container(try! ContainerRegistration(text: code, now: start)), trusted: trusted)
        case .trust(let accept): return try machine.trust(accept)
        case .answer(let nonce, let accept, let at):
            let answer: PushAnswer = accept ? .accept(presence: nil) : .decline(nil)
            let found = try machine.challenge(nonce, at: start.addingTimeInterval(at))
            return try machine.answer(answer, nonce: found.challenge.nonce, at: start.addingTimeInterval(at))
        case .answered(let nonce, let failed):
            machine.answered(nonce, failing: failed ? refused : nil)
        case .registered(let failed): machine.registered(failing: failed ? refused : nil)
        case .retrying(let attempt): machine.registrationRetrying(attempt: attempt, of: 4, nextIn: 1)
        case .forged(let nonce):
            var request = Self.challenge(nonce).1
            request.state = .error
            request.error = FlowError(code: "PUSH_CHALLENGE_FORGED", message: "not signed by its server")
            machine.refused(request, at: start)
        case .look(let at): machine.expire(at: start.addingTimeInterval(at))
        }
        return .none
    }

    static func challenge(_ nonce: String) -> (PushChallenge, PrivacyIDEARequest) {
        let challenge = try! PushChallenge(data: [
            "nonce": nonce, "question": "Log in?", "serial": "PIPU1", "title": "privacyIDEA", "sslverify": "1",
            "url": "http://127.0.0.1:5001/ttype/push", "signature": "S",
        ])
        let request = PrivacyIDEARequest(
            kind: .challenge, state: .waitForInput, serial: "PIPU1", label: "alice", issuer: "privacyIDEA", origin: "http://127.0.0.1:5001",
            title: challenge.title, question: challenge.question, nonce: nonce)
        return (challenge, request)
    }

    static func describe(_ action: PrivacyIDEAMachine.Action) -> String {
        switch action {
        case .none: "-"
        case .register: "register"
        case .send(_, let challenge): "send \(challenge.nonce)"
        }
    }

    static func describe(_ screen: PrivacyIDEARequest) -> String {
        let what = screen.kind == .challenge ? screen.nonce ?? "?" : screen.kind.rawValue
        let detail = screen.error?.code ?? screen.outcome?.rawValue
        return ([what, screen.state.rawValue] + (detail.map { [$0] } ?? [])).joined(separator: " ")
    }
}
