import BackendAPI
import Foundation
import Phone
import Retry
import TestDoubles
import Testing

/// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes):
/// told to the backend under a retry policy, and kept on the phone only once the backend has it.
@Suite struct DeviceChangeRetryTests {
    static let devices = TestServer.url + BackendRoutes.devices
    static let rename = DeviceInformationChange(name: "Work phone")

    /// A connection error is tried again after the policy's wait; the signed change lands on the
    /// second attempt and the phone keeps it.
    @Test(arguments: TestEngine.available) func aChangeIsRetriedOnItsScheduleAndKeptOnceTheBackendHasIt(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        phone.backend.expect(Self.devices, failingWith: .serverConnection("connection refused"))
        phone.backend.expect(Self.devices, DeviceInformationChangeRequest.self) { request in
            #expect(request.name == "Work phone")
            #expect(request.accountId == enrolment.accountId)
            #expect(TestServer.verifies(request.signature, SignedMessage.deviceChange(request), by: enrolment.accountKey))
            return DeviceInformation(deviceId: request.deviceId, name: "Work phone", fcmToken: nil)
        }

        let result = try await phone.phones.changeDeviceInformation(
            phoneId: id, Self.rename, retry: .constant(maxRetries: 2, delay: .seconds(3)))

        #expect(result.progress.state == .succeeded)
        #expect(result.progress.attempts.map(\.number) == [1, 2])
        #expect(result.progress.attempts.first?.outcome.contains("SERVER_CONNECTION_ERROR") == true)
        #expect(phone.sleeps.recorded == [.seconds(3)])
        #expect(result.deviceInformation.name == "Work phone")
        #expect(try await phone.phones.deviceInformation(id).name == "Work phone")
    }

    /// A refusal cannot succeed later: it is not tried again, and the phone keeps its old name.
    @Test(arguments: TestEngine.available) func aRefusalIsNotRetriedAndChangesNothing(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        phone.backend.expect(Self.devices, failingWith: PhoneError(.forbidden, "SIGNATURE_INVALID", "the signature does not verify"))

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.changeDeviceInformation(phoneId: id, Self.rename, retry: .constant(maxRetries: 2, delay: .seconds(3)))
        }

        #expect(error?.code == "SIGNATURE_INVALID")
        #expect(error?.attempts?.count == 1)
        #expect(phone.sleeps.recorded.isEmpty)
        #expect(try await phone.phones.deviceInformation(id).name == "Test phone")
    }

    /// When no attempt gets through, the change fails with error 70, every attempt listed, and
    /// the phone keeps its old name.
    @Test(arguments: TestEngine.available) func whenNoAttemptGetsThroughTheChangeFails(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        for _ in 1...2 { phone.backend.expect(Self.devices, failingWith: .serverConnection("connection refused")) }

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.changeDeviceInformation(phoneId: id, Self.rename, retry: .constant(maxRetries: 1, delay: .seconds(2)))
        }

        #expect(error?.code == "DEVICE_INFORMATION_CHANGE_FAILED")
        #expect(error?.sdkCode == 70)
        #expect(error?.attempts?.count == 2)
        #expect(phone.sleeps.recorded == [.seconds(2)])
        #expect(try await phone.phones.deviceInformation(id).name == "Test phone")
    }
}
