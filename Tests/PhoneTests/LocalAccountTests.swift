import BackendAPI
import Foundation
import Phone
import TestDoubles
import Testing

/// The SDK's LocalData (docs/behaviour.md#local-data) and the ways accounts leave the phone:
/// here only, at the backend first, or all at once with a new device identity.
@Suite struct LocalAccountTests {
    @Test(arguments: TestEngine.available) func localDataListsTheAccountAndItsAuthenticators(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()

        let local = try await phone.phones.localData(phoneId: id)

        #expect(local.accounts.map(\.id) == [enrolment.accountId])
        #expect(local.deviceInformation.name == "Test phone")
        #expect(local.deviceInformation.pushNotifications)
        #expect(local.authenticators.map(\.aaid) == ["PIN", "BIOMETRICS"])
        #expect(local.authenticators.map(\.registered) == [true, false])
        #expect(local.authenticators.allSatisfy { $0.userIds == ["alice"] })
    }

    /// Changes to one phone at once all count: each reads and writes the phone in one
    /// transaction (read apart from the write, eight fingerprints added at once made four, and a
    /// setting changed meanwhile could be written back as it was).
    @Test(arguments: TestEngine.available) func changesAtOnceToOnePhoneAllCount(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let before = try await phone.phones.phone(id: id).biometrics.enrolledFeatures
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await phone.phones.enrolBiometricFeature(phoneId: id) } }
            group.addTask { _ = try await phone.phones.update(phoneId: id, settings: PhoneSettingsChange(openPushesAtOnce: true)) }
            try await group.waitForAll()
        }
        let after = try await phone.phones.phone(id: id)
        #expect(after.biometrics.enrolledFeatures == before + 8)
        #expect(after.settings.openPushesAtOnce)
    }

    /// Nevis's deleteAuthenticator for the PIN removes the user's accounts from this phone only:
    /// the backend is not asked. An unknown user changes nothing.
    @Test(arguments: TestEngine.available) func deletingThePinAuthenticatorRemovesTheUsersAccountsHereOnly(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        let sentBefore = phone.backend.sent.count

        let unknown = await #expect(throws: PhoneError.self) {
            try await phone.phones.deleteAuthenticator(phoneId: id, userId: "bob", aaid: "PIN")
        }
        #expect(unknown?.code == "USER_NOT_FOUND")
        #expect(try await phone.phones.localData(phoneId: id).accounts.count == 1)

        let local = try await phone.phones.deleteAuthenticator(phoneId: id, userId: "alice", aaid: "PIN")

        #expect(local.accounts.isEmpty)
        #expect(local.authenticators.first?.registered == false)
        #expect(phone.backend.sent.count == sentBefore)
    }

    /// Removing an account asks its backend first, signed by the account's key: while the
    /// backend cannot be reached the account stays.
    @Test(arguments: TestEngine.available) func removingAnAccountTellsItsBackendFirst(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let removal = TestServer.url + BackendRoutes.accountRemoval
        phone.backend.expect(removal, failingWith: .serverConnection("connection refused"))

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.removeAccount(phoneId: id, accountId: enrolment.accountId)
        }
        #expect(error?.sdkCode == 70)
        #expect(try await phone.phones.localData(phoneId: id).accounts.count == 1)

        phone.backend.expect(removal, AccountRemovalRequest.self) { request in
            let signed = SignedMessage.removeAccount(accountId: enrolment.accountId, timestamp: request.timestamp)
            #expect(TestServer.verifies(request.signature, signed, by: enrolment.accountKey))
            return Acknowledged()
        }
        let local = try await phone.phones.removeAccount(phoneId: id, accountId: enrolment.accountId)

        #expect(local.accounts.isEmpty)
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// Local data changes wait while a flow may be using them.
    @Test(arguments: TestEngine.available) func localDataWaitsForTheFlowToEnd(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let session = phone.server.session(.login)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        _ = try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())

        let deleted = await #expect(throws: PhoneError.self) {
            try await phone.phones.deleteAuthenticator(phoneId: id, userId: "alice", aaid: nil)
        }
        let removed = await #expect(throws: PhoneError.self) {
            try await phone.phones.removeAccount(phoneId: id, accountId: enrolment.accountId)
        }

        #expect(deleted?.code == "FLOW_ACTIVE")
        #expect(removed?.code == "FLOW_ACTIVE")
        #expect(try await phone.phones.localData(phoneId: id).accounts.count == 1)
    }

    /// Removing all accounts resets the SDK: no PIN, and a new device identity, so the server's
    /// counters for the old one stay behind.
    @Test(arguments: TestEngine.available) func removingAllAccountsGivesTheDeviceANewIdentity(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        let before = try await phone.phones.phone(id: id)

        let after = try await phone.phones.removeAllAccounts(phoneId: id)

        #expect(after.accounts.isEmpty)
        #expect(!after.hasPin)
        #expect(after.deviceId != before.deviceId)
    }
}
