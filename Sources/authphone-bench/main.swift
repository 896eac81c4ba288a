import AuthFlow
import Backend
import BackendAPI
import Foundation
import GRDB
import OTP
import OutOfBand
import Retry
import SodiumKit
import Storage
import TestDoubles
import WireJSON

// Micro benchmarks of the hot paths a load runs through, in release: each case runs for at least
// half a second, five times, and the median rate is reported with the machine's core count.
// `authphone-bench [--json FILE] [--quick]`.

struct Figure: Codable {
    var name: String
    var perSecond: Double
    var nanosecondsPerOp: Double
    var runs: [Double]
    var note: String
}

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
let jsonPath = arguments.firstIndex(of: "--json").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
var figures: [Figure] = []

/// Runs `body` in batches until at least `minimum` has passed, `repeats` times; the median rate wins.
@MainActor func measure(_ name: String, note: String = "", minimum: Duration = .milliseconds(500), _ body: () throws -> Void) rethrows {
    let clock = ContinuousClock()
    var rates: [Double] = []
    for _ in 0..<(quick ? 1 : 5) {
        var operations = 0
        var batch = 1
        let start = clock.now
        while clock.now - start < (quick ? minimum / 5 : minimum) {
            for _ in 0..<batch { try body() }
            operations += batch
            batch = min(batch * 2, 4096)
        }
        let elapsed = clock.now - start
        rates.append(Double(operations) / elapsed.seconds)
    }
    let median = rates.sorted()[rates.count / 2]
    figures.append(Figure(name: name, perSecond: median, nanosecondsPerOp: 1e9 / median, runs: rates, note: note))
    report(figures[figures.count - 1])
}

func report(_ figure: Figure) {
    let rate = String(format: "%12.0f /s", figure.perSecond)
    let cost = String(format: "%10.2f µs/op", figure.nanosecondsPerOp / 1000)
    print(figure.name.padding(toLength: 64, withPad: " ", startingAt: 0) + rate + "  " + cost + "  " + figure.note)
}

print("AuthPhone micro benchmarks on \(ProcessInfo.processInfo.activeProcessorCount) cores (\(CommandLine.arguments.joined(separator: " ")))")

// Payload decoding: each way a payload arrives.
let payload = OutOfBandPayload(
    redeemData: .init(
        token: "qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFhT2u9mXlQ0bA",
        redeemURL: URL(string: "http://127.0.0.1:8080/api/backend/redeem")!))
let qrText = payload.qrText
let deepLink = payload.deepLink
let pushJSON = Array(
    try JSONSerialization.data(withJSONObject: [
        "data": PushMessage.data(for: payload), "notification": ["title": "Log in?", "body": "Confirm the login of alice."],
    ]))
try measure("decode QR text (base64url JSON)") { _ = try OutOfBandDecoder.decode(qrText: qrText) }
try measure("decode deep link") { _ = try DeepLink.decode(deepLink) }
try measure("decode FCM push JSON") { _ = try PushDecoder.decode(json: pushJSON).payload() }

// A complete LOGIN through the flow machine, as the phone drives it.
let server = ServerInfo(name: "Demo", url: "http://127.0.0.1:8080", publicKey: "key")
let account = AccountSummary(
    id: "a1", userId: "alice", displayName: "Alice", server: ServerSummary(name: "Demo", url: server.url),
    createdAt: Date(timeIntervalSince1970: 0))
let session = SessionInfo(id: "s1", type: .login, expiresAt: Date(timeIntervalSince1970: 600), server: server, userId: "alice")
let secondFactor = SecondFactorAccount(isBlocked: false, failedAttempts: 0, maxAttempts: 3)
try measure("flow machine: a whole LOGIN (confirm, PIN, DONE)") {
    var (machine, _) = FlowMachine.start(id: "f", session: session, accounts: [account], phoneHasPin: true)
    _ = try machine.confirmSession(accountID: "a1")
    _ = machine.sessionConfirmed(secondFactorAccount: secondFactor)
    _ = try machine.inputPin()
    _ = machine.secondFactorChecked(.accepted(secondFactor))
    precondition(machine.flow.state == .done)
}

// A FlowUpdate as the screen's WebSocket carries it (a login waiting for the PIN): every screen
// update of every flow is one.
var waitingForPin = FlowMachine.start(id: "f", session: session, accounts: [account], phoneHasPin: true).0
_ = try waitingForPin.confirmSession(accountID: "a1")
_ = waitingForPin.sessionConfirmed(secondFactorAccount: secondFactor)
let foundationEncoder = WireJSON.encoder()
try measure("a FlowUpdate's JSON, Foundation's encoder") { _ = try foundationEncoder.encode(waitingForPin.flow) }
try measure("a FlowUpdate's JSON, WireJSON.bytes") { _ = try WireJSON.bytes(waitingForPin.flow) }

// A date as a row stores it: a login writes about a dozen (sessions, pushes, the timeline's hops).
let storedAt = Date()
measure("a date's text for SQLite, GRDB's DateFormatter") { _ = storedAt.databaseValue }
measure("a date's text for SQLite, StoredDate") { _ = StoredDate(storedAt).databaseValue }

// The offline OTP: the phone's one generation, the backend's check of two steps, and otpLogin.
let otpKey = (0..<32).map(UInt8.init)
let now = Date()
measure("offline OTP: generate") { _ = OfflineOTP.generate(key: otpKey, sessionData: payload.redeemData.token, reference: 123_456_789, at: now) }
let typed = OfflineOTP.generate(key: otpKey, sessionData: payload.redeemData.token, reference: 123_456_789, at: now).description
try measure("offline OTP: parse and check two steps") {
    let otp = try OfflineOTP(parsing: typed)
    let step = OfflineOTP.step(at: now)
    let ok = [step, step - 1].contains {
        OfflineOTP.value(key: otpKey, sessionData: payload.redeemData.token, reference: otp.reference, step: $0) == otp.value
    }
    precondition(ok)
}

/// otpLogin at the demo backend, each logging a session in (a write transaction). Each login
/// is another account's: an account's OTP is accepted once a time step.
/// Offline-OTP logins at the backend, `inFlight` at a time: one at a time shows a lone request's
/// cost (with a file, one sync each); many at once show what a busy server takes, whose writes
/// share commits (GroupCommit).
@MainActor func otpLogins(_ database: BackendStore, label: String, inFlight: Int) async throws {
    let backend = try await DemoBackend(store: database, configuration: .init(sessionLifetime: 3600), baseURL: { "http://127.0.0.1:8080" })
    _ = try await backend.setServerFlags(["ENABLE_OTP": true])
    let device = ScriptedDevice()
    let total = quick ? 200 : 2000
    var codes: [(String, String)] = []
    for index in 0..<total {
        let pair = try KeyExchange.KeyPair.generate()
        let user = "bench-\(index)"
        guard let agreement = try await device.enrolment(backend, user: user, pin: "260418", otpPublicKey: pair.publicKey).answer.otp,
            let backendHalf = Base64URL.decode(agreement.serverPublicKey)
        else { fatalError("the backend gave no OTP key") }
        let key = try pair.clientSharedKey(serverPublicKey: backendHalf)
        let login = try await backend.createSession(type: .login, userId: user, displayName: nil)
        let token = try OutOfBandDecoder.decode(qrText: login.qrText).redeemData.token
        codes.append((login.id, OfflineOTP.generate(key: key, sessionData: token, reference: agreement.reference, at: Date()).description))
    }
    let clock = ContinuousClock()
    let start = clock.now
    // `inFlight` lanes, each taking every inFlight-th login in turn
    let lanes = (0..<inFlight).map { lane in stride(from: lane, to: codes.count, by: inFlight).map { codes[$0] } }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in lanes {
            group.addTask { for (id, code) in lane { _ = try await backend.otpLogin(sessionId: id, otp: code) } }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - start
    let rate = Double(total) / elapsed.seconds
    let name = "otpLogin at the backend (\(label), \(inFlight == 1 ? "one at a time" : "\(inFlight) at once"))"
    figures.append(Figure(name: name, perSecond: rate, nanosecondsPerOp: 1e9 / rate, runs: [rate], note: "one write transaction each"))
    report(figures[figures.count - 1])
}
try await otpLogins(.inMemory(), label: "in memory", inFlight: 1)
for inFlight in [1, 64] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try await otpLogins(
        .open(path: folder.appendingPathComponent("backend.sqlite").path), label: "SQLite file, sync FULL", inFlight: inFlight)
    try? FileManager.default.removeItem(at: folder)
}

for inFlight in [1, 64] {
    let hops = try await wireHops(quick ? 2000 : 20000, inFlight: inFlight)
    figures.append(
        Figure(
            name: "one wire exchange in-process (HTTP, keep-alive, \(inFlight == 1 ? "one at a time" : "\(inFlight) at once"))",
            perSecond: hops.perSecond, nanosecondsPerOp: 1e9 / hops.perSecond,
            runs: [hops.perSecond], note: String(format: "%.0f µs CPU each, both ends", hops.cpuMicroseconds)))
    report(figures[figures.count - 1])
}

// The protocol's own signatures: a login out of band makes six and checks six.
let signer = try Ed25519.KeyPair.generate()
let challenge = Array("a session's single-use challenge, bound to its id".utf8)
let signature = signer.sign(challenge)
measure("Ed25519: sign a challenge") { _ = signer.sign(challenge) }
measure("Ed25519: verify a signature") { _ = Ed25519.verify(signature: signature, message: challenge, publicKey: signer.publicKey) }

// A PIN's life in guarded memory as one input has it: copied in, read for its shape and its key, wiped, freed.
try measure("a PIN in guarded memory: in, read twice, wiped, freed") {
    let entered = try GuardedBytes(copying: "260418".utf8)
    for _ in 0..<2 { _ = entered.withBytes { $0.count } }
    entered.reset()
}

// The PIN verifier's key derivation (Argon2id) with each profile the server offers.
let salt = [UInt8](repeating: 7, count: PinKeyDerivation.saltLength)
let pin = try GuardedBytes(copying: Array("260418".utf8))
for profile in [PinKeyDerivation.Profile.fast, .interactive, .moderate] where !(quick && profile.name == "moderate") {
    let derivation = PinKeyDerivation(profile: profile)
    try measure(
        "PIN key derivation, Argon2id \(profile.name)", note: "\(profile.memLimit / 1024) KiB, \(profile.opsLimit) passes",
        minimum: profile.name == "fast" ? .milliseconds(500) : .seconds(2)
    ) {
        _ = try derivation.keyPair(pin: pin, salt: salt)
    }
}

if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(figures).write(to: URL(fileURLWithPath: jsonPath))
}
