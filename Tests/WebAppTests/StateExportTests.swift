import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import SodiumKit
import StateExport
import Testing
import WebApp

/// Export, import and `serve --seed`: the same phones, with their accounts and keys, log in on
/// a server that loaded them; a state a store refuses changes no store.
@Suite(.timeLimit(.minutes(2))) struct StateExportTests {
    struct Phones: Decodable {
        let phones: [PhoneSummary]
    }

    static let passphrase = "a passphrase for the CI job"
    static func guarded() throws -> GuardedBytes { try GuardedBytes(copying: Array(passphrase.utf8)) }

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-state-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A folder where alice enrolled a phone, exported (at the least Argon2id cost) and opened again.
    static func exportedState() async throws -> (folder: String, file: Data, state: ExportedState) {
        let folder = try folder()
        try await withEnrolledPhone(testConfiguration(dataDirectory: folder)) { _, _, _ in }
        let file = try await exportState(from: .folder(folder), passphrase: guarded(), cost: .minimum)
        return (folder, file, try StateFile.read(file, passphrase: guarded()))
    }

    /// What a folder holds, as an export sees it.
    static func contents(_ folder: String) async throws -> ExportedState {
        try StateFile.read(try await exportState(from: .folder(folder), passphrase: guarded(), cost: .minimum), passphrase: guarded())
    }

    @Test func aSeededServerLogsTheSamePhonesIn() async throws {
        let (folder, _, state) = try await Self.exportedState()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let phone = try #require(state.phones.first)
        #expect(phone.accounts.map(\.userId) == ["alice"])
        #expect(state.backend.accounts.map(\.id) == phone.accounts.map(\.id))

        var configuration = testConfiguration()
        configuration.seed = state
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let phones = try await client.send(.get, "/api/phones").decode(Phones.self).phones
            #expect(phones.map(\.id) == [phone.id] && phones.map(\.name) == [phone.name])
            let detail = try await client.phoneDetail(phone.id)
            #expect(detail.hasPin && detail.accounts.map(\.id) == phone.accounts.map(\.id) && detail.fcmToken == phone.fcmToken)
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                let login = try await client.startSession("login", user: "alice")
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": login.qrText])
                #expect(try await screen.settledFlow().currentInteraction?.type == .confirm)
                try await screen.send(["action": "confirmSession"])
                #expect(try await screen.settledFlow().currentInteraction?.type == .verifySecondFactor)
                try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
                #expect(try await screen.settledFlow().state == .done)
                #expect(try await client.backendSession(login.id).status == .loggedin)
            }
        }
    }

    @Test func aStateOneStoreRefusesChangesNeither() async throws {
        let (folder, _, state) = try await Self.exportedState()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // each refused by one store, with a change the other would take
        let changes: [(String, (inout ExportedState) -> Void)] = [
            ("pinChangeStyle", { $0.phones[0].settings.pinChangeStyle = "sideways" }),
            ("otpCountdown", { $0.phones[0].settings.otpCountdown = 100_000 }),
            ("displayName", { $0.backend.accounts[0].displayName = "Alice\u{202E}ecilA" }),
            ("deviceId", { $0.backend.devices[0].deviceId = "a device" }),
            ("failedAttempts", { $0.backend.secondFactors[0].failedAttempts = -1 }),
            ("serverFlags", { $0.backend.serverFlags = [ExportedState.ServerFlag(name: "ROOT", enabled: true, updatedAt: Date())] }),
            (
                "privacyIDEA token PIPU1",
                { state in
                    state.phones[0].privacyIDEATokens = [
                        ExportedState.PrivacyIDEAToken(
                            serial: "PIPU1", label: "alice", issuer: "privacyIDEA", url: "https://pi.example/ttype/push",
                            origin: "https://pi.example", sslVerify: true, pollOnly: true, requiresUnlock: false, serverKey: "not a key",
                            fcmToken: state.phones[0].fcmToken, createdAt: Date())
                    ]
                    state.secrets.phones[state.phones[0].id]?.privacyIDEATokenKeys = ["PIPU1": Data("not a key either".utf8)]
                }
            ),
            (
                "privacyIDEA server",
                { $0.phones[0].privacyIDEAServers = [ExportedState.PrivacyIDEAServer(origin: "javascript:alert(1)", acceptedAt: Date())] }
            ),
        ]
        for (field, change) in changes {
            var refused = state
            refused.phones[0].name = "Changed"
            refused.backend.accounts[0].userId = "changed"
            change(&refused)
            let error = await #expect(throws: StateExportError.self) { try await importState(refused, into: .folder(folder), replacing: true) }
            #expect(error?.code == "EXPORT_INVALID" && error?.message.contains(field) == true, "\(field): \(String(describing: error))")
            #expect(try await Self.contents(folder) == state, "\(field)")
        }

        // a folder with phones is not written unless asked to replace them
        var other = state
        other.backend.accounts[0].displayName = "Changed"
        let notEmpty = await #expect(throws: StateExportError.self) { try await importState(other, into: .folder(folder), replacing: false) }
        #expect(notEmpty?.code == "EXPORT_TARGET_NOT_EMPTY")
        #expect(try await Self.contents(folder) == state)
        try await importState(other, into: .folder(folder), replacing: true)
        #expect(try await Self.contents(folder) == other)
    }

    @Test func aSeedLeavesAFolderInUseAsItIs() async throws {
        let (folder, _, state) = try await Self.exportedState()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var seed = state
        seed.phones[0].name = "From the seed"
        var configuration = testConfiguration(dataDirectory: folder)
        configuration.seed = seed
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let phones = try await client.send(.get, "/api/phones").decode(Phones.self).phones
            #expect(phones.map(\.name) == state.phones.map(\.name))
        }
    }

    @Test func anExportNeedsAFolderWithTheDatabases() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-none-\(UUID())").path
        await #expect(throws: DataFolderError.self) { try await exportState(from: .folder(missing), passphrase: Self.guarded()) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
