import Foundation
import TestDoubles
import Testing

@testable import Phone

/// Two instances sharing the phones' database change the same phone at once and lose no change:
/// every count and every counter step of either one is in the row, and an account imported
/// through both at once is kept once, each import answered without an error.
@Suite struct TwoInstancesTests {
    @Test(arguments: TestEngine.available) func concurrentChangesThroughTwoInstancesAreAllKept(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let hotp = try await phone.phones.importOTPAccount(phoneId: id, uri: OTPAccountTests.hotp)
        let stores = [phone.store, try await engine.otherInstance(of: phone.store)]
        let secret = Data("12345678901234567890".utf8)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let store = stores[index % 2]
                let totp = OTPAccountRecord(
                    id: "totp-\(index)", phoneId: id, issuer: "ACME", label: "carol", algorithm: "SHA1", digits: 6, period: 30, counter: nil,
                    secret: secret, createdAt: phone.clock.now())
                group.addTask { try await store.countBiometricUse(phoneId: id) }
                group.addTask { _ = try await store.advanceCounter(of: hotp.id, phoneId: id) }
                group.addTask { _ = try await store.insert(totp) }
            }
            try await group.waitForAll()
        }

        let (record, _) = try #require(try await stores[1].phoneAndAccounts(id))
        #expect(record.biometricUsesSinceLastPin == 20)
        let accounts = try await stores[0].otpAccounts(phoneId: id)
        #expect(accounts.first { $0.id == hotp.id }?.counter == 23, "from 3, 20 steps")
        #expect(accounts.filter { $0.label == "carol" }.count == 1)
    }
}
