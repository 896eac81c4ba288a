import AuthFlow
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import Logging
import OutOfBand
import SodiumKit
import Synchronization
import Testing
import WebApp

@testable import Backend
@testable import Phone
@testable import PushService

/// Keeps every log line, at every level, so a test can search them.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "capture") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
            capture.lines.withLock { $0.append("\(event.level) \(event.message) " + all.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) }
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct SecretsAndDurabilityTests {
    static let pin = "260418"

    /// Enrols on one server, stops it, and logs in on a new one over the same files; neither the
    /// logs nor the database files (and their write-ahead logs) contain the PIN.
    @Test func acknowledgedStateSurvivesARestartAndThePinIsNowhere() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logs = LogCapture()
        let configuration = testConfiguration(dataDirectory: directory)

        let first = try await buildApplication(configuration, logger: logs.logger())
        let phoneId = try await first.test(.live) { client in
            let phone = try await client.createPhone()
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                try await enrol(client, &screen, phoneId: phone.id, user: "alice", pin: Self.pin)
            }
            return phone.id
        }

        let second = try await buildApplication(configuration, logger: logs.logger())
        try await second.test(.live) { client in
            let phone = try await client.phoneDetail(phoneId)
            #expect(phone.hasPin)
            let account = try #require(phone.accounts.first)
            try await client.ws("/api/phones/\(phoneId)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                let login = try await client.startSession("login", user: "alice")
                _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": login.qrText])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "confirmSession", "account": account.id])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
                #expect(try await screen.settledFlow().state == .done)
                #expect(try await client.backendSession(login.id).status == .loggedin)
            }
            // While the server runs, so the write-ahead logs are there too; a search of an empty
            // folder would find no PIN either.
            let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(
                Set(files).isSuperset(of: [
                    "phones.sqlite", "phones.sqlite-wal", "backend.sqlite", "backend.sqlite-wal",
                    "push.sqlite", "push.sqlite-wal",
                ]), "\(files)")
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
                #expect(bytes.range(of: Data(Self.pin.utf8)) == nil, "the PIN is in \(file)")
            }
        }

        #expect(!logs.all.isEmpty)
        #expect(logs.all.allSatisfy { !$0.contains(Self.pin) })
    }

    /// Every commit is synced (`synchronous = FULL`, 2), so it survives a power loss too: the
    /// backend's PIN and OTP counters, the push inboxes, the phones' accounts and counts. A
    /// SIGKILL loses nothing committed in WAL mode either way (Tests/api/test_durability.py).
    @Test func countersAndInboxesAreSyncedOnEveryCommit() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = try BackendStore.open(path: directory + "/backend.sqlite")
        let push = try PushStore.open(path: directory + "/push.sqlite")
        let phones = try PhoneStore.open(path: directory + "/phones.sqlite")
        #expect(try await #require(phones.sqliteWriter).write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        #expect(try await #require(backend.sqliteWriter).write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        #expect(try await #require(push.sqliteWriter).write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
    }

    /// A phone of its own, talking to the live server's backend over HTTP as `--backend-url`
    /// would make it: after every PIN input the guarded buffer is zero.
    @Test func thePinBufferIsWipedAfterEveryInput() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let phones = try remotePhones(allowing: { ["http://127.0.0.1:\(port)"] })
            let phone = try await phones.createPhone(name: "remote")

            let enrol = try await client.startSession("enrol", user: "alice")
            _ = try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: OutOfBandDecoder.decode(qrText: enrol.qrText))
            try await phones.sdk.confirmSession(phoneId: phone.id, accountID: nil)

            let common = try GuardedBytes(copying: Array("123456".utf8))
            await #expect(throws: PhoneError.self) { try await phones.sdk.inputPin(phoneId: phone.id, pin: common) }
            #expect(common.isZeroed)

            let chosen = try GuardedBytes(copying: Array(Self.pin.utf8))
            try await phones.sdk.inputPin(phoneId: phone.id, pin: chosen)
            #expect(chosen.isZeroed)
            #expect(await phones.sdk.currentFlow(phoneId: phone.id)?.state == .done)

            let login = try await client.startSession("login", user: "alice")
            _ = try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: OutOfBandDecoder.decode(qrText: login.qrText))
            try await phones.sdk.confirmSession(phoneId: phone.id, accountID: nil)
            let wrong = try GuardedBytes(copying: Array("918273".utf8))
            try await phones.sdk.inputPin(phoneId: phone.id, pin: wrong)
            #expect(wrong.isZeroed)
            #expect(await phones.sdk.currentFlow(phoneId: phone.id)?.previousInteractionResult?.type == .pinFail)
        }
    }
}
