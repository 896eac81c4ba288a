import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

/// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes) at the backend.
@Suite struct DeviceInformationTests {
    let clock = TestClock()

    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        let clock = clock
        return try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    func change(
        _ device: ScriptedDevice, account: String, name: String? = nil, token: String? = nil, disable: Bool? = nil,
        at time: Date? = nil, signedBy key: Ed25519.KeyPair? = nil
    ) -> DeviceInformationChangeRequest {
        var request = DeviceInformationChangeRequest(
            deviceId: device.id, accountId: account, name: name, fcmToken: token,
            disablePushNotifications: disable, timestamp: time ?? clock.now(), signature: "")
        request.signature = Base64URL.encode((key ?? device.accountKey).sign(SignedMessage.deviceChange(request)))
        return request
    }

    @Test(arguments: TestEngine.available) func nameTokenAndDisablingPushes(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        var info = try await backend.changeDeviceInformation(change(device, account: account, name: "Alice's phone", token: "token-2"))
        #expect(info == DeviceInformation(deviceId: device.id, name: "Alice's phone", fcmToken: "token-2"))
        #expect(info.pushNotifications)
        info = try await backend.changeDeviceInformation(change(device, account: account, disable: true))
        #expect(info.fcmToken == nil && !info.pushNotifications && info.name == "Alice's phone")
        // a token again turns pushes back on
        info = try await backend.changeDeviceInformation(change(device, account: account, token: "token-3"))
        #expect(info.pushNotifications && info.fcmToken == "token-3")
    }

    @Test(arguments: TestEngine.available) func aNameIsUniqueAmongTheUsersDevices(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let first = ScriptedDevice()
        let second = ScriptedDevice()
        let stranger = ScriptedDevice()
        let a1 = try await first.enrol(backend, user: "alice", pin: "260418")
        let a2 = try await second.enrol(backend, user: "alice", pin: "260418")
        let b1 = try await stranger.enrol(backend, user: "bob", pin: "260418")
        _ = try await backend.changeDeviceInformation(change(first, account: a1, name: "Work phone"))
        let error = await #expect(throws: BackendError.self) {
            try await backend.changeDeviceInformation(change(second, account: a2, name: "Work phone", token: "t"))
        }
        #expect(error?.code == "NAME_ALREADY_EXISTS")
        // nothing of the refused change was kept, and another user may use the name
        #expect(try await backend.changeDeviceInformation(change(second, account: a2)).fcmToken == nil)
        #expect(try await backend.changeDeviceInformation(change(stranger, account: b1, name: "Work phone")).name == "Work phone")
        // renaming to its own name is no conflict
        #expect(try await backend.changeDeviceInformation(change(first, account: a1, name: "Work phone")).name == "Work phone")
    }

    @Test(arguments: TestEngine.available) func refusalsChangeNothing(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let refused: [(DeviceInformationChangeRequest, String)] = [
            (change(device, account: account, name: "x", at: clock.now().addingTimeInterval(-301)), "STALE_REQUEST"),
            (change(device, account: account, name: "x", signedBy: try .generate()), "INVALID_SIGNATURE"),
            (change(device, account: account, name: String(repeating: "n", count: 65)), "INVALID_FIELD"),
            (change(device, account: account, token: "has space"), "INVALID_FIELD"),
            (change(device, account: account, token: "t", disable: true), "INVALID_FIELD"),
            (change(ScriptedDevice(), account: account, name: "x"), "ACCOUNT_NOT_FOUND"),
        ]
        for (request, code) in refused {
            let error = await #expect(throws: BackendError.self) { try await backend.changeDeviceInformation(request) }
            #expect(error?.code == code)
        }
        #expect(try await backend.changeDeviceInformation(change(device, account: account)).name == "scripted")
    }
}
