import Backend
import BackendAPI
import Foundation
import TestDoubles
import Testing

/// Seed 001: the server may give a login or enrolment its own announceInfo, a logo and strings
/// by key; the backend hands what the console set to the phone, and refuses what a phone could
/// not show.
@Suite struct AnnouncementTests {
    /// A red 1×1 PNG.
    static let logo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" })
    }

    @Test(arguments: TestEngine.available) func aSessionsOwnAnnouncementReachesThePhone(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let announced = try await backend.createSession(
            type: .enrol, userId: "alice", displayName: nil, announceInfo: ["Shop": "ACME Ltd", "Order": "42"], announceLogo: Self.logo)
        let redeemed = try await device.redeem(backend, announced)
        #expect(redeemed.announceInfo == ["Shop": "ACME Ltd", "Order": "42"])
        #expect(redeemed.announceLogo == Self.logo)

        // without one: the server's name and the user, and no logo
        let plain = try await ScriptedDevice().redeem(backend, try await backend.createSession(type: .enrol, userId: "bob", displayName: nil))
        #expect(plain.announceInfo == ["Service": "AuthPhone demo backend", "User": "bob"])
        #expect(plain.announceLogo == nil)
    }

    static let gif = "data:image/gif;base64," + Data("GIF89a".utf8).base64EncodedString()
    static let refused: [([String: String]?, String?, String)] = [
        (["": "x"], nil, "announceInfo"), (["Shop": "line\u{202E}"], nil, "announceInfo"),
        (["Shop\nname": "x"], nil, "announceInfo"), (["Shop": String(repeating: "x", count: 201)], nil, "announceInfo"),
        // a line break in a value would show as one more "Key: value" line on the confirm screen
        (["Shop": "ACME Ltd\nAmount: 0.00 EUR"], nil, "announceInfo"), (["Shop": "ACME Ltd\r\nVerified: yes"], nil, "announceInfo"),
        (["Shop": "ACME Ltd\u{2028}Verified: yes"], nil, "announceInfo"),
        (Dictionary(uniqueKeysWithValues: (0...10).map { ("k\($0)", "v") }), nil, "announceInfo"),
        (nil, "https://evil.example/logo.png", "announceLogo"), (nil, "data:image/svg+xml;base64,PHN2Zz4=", "announceLogo"),
        (nil, "data:image/png;base64,not base64!", "announceLogo"), (nil, gif.replacingOccurrences(of: "gif", with: "png"), "announceLogo"),
        (nil, "data:image/png;base64," + Data(repeating: 0x89, count: 9000).base64EncodedString(), "announceLogo"),
    ]

    @Test(arguments: refused)
    func whatAPhoneCouldNotShowIsRefusedAndStartsNothing(info: [String: String]?, logo: String?, field: String) async throws {
        let backend = try await makeBackend(on: .sqlite)
        let error = await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .login, userId: "alice", displayName: nil, announceInfo: info, announceLogo: logo)
        }
        #expect(error?.code == "INVALID_FIELD")
        #expect(error?.message.contains("'\(field)'") == true)
        #expect(try await backend.recentSessions().isEmpty)
    }

    @Test(arguments: TestEngine.available) func aGIFLogoIsTaken(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        _ = try await backend.createSession(type: .enrol, userId: "alice", displayName: nil, announceLogo: Self.gif)
        #expect(try await backend.recentSessions().count == 1)
    }
}
