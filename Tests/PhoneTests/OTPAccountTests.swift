import Foundation
import OTP
import StateExport
import Storage
import TestDoubles
import Testing

@testable import Phone

/// The phone as an authenticator for otpauth:// keys: imported, its codes at the phone's clock
/// (expected codes computed apart, with Python's hmac), HOTP's next, removal, each refusal
/// changing nothing, the screen told of each change, and the keys carried by the state export.
@Suite struct OTPAccountTests {
    /// RFC 4226's key, "12345678901234567890".
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let totp = "otpauth://totp/ACME:alice?secret=\(secret)&issuer=ACME"
    static let hotp = "otpauth://hotp/bob?secret=\(secret)&counter=3"

    @Test(arguments: TestEngine.available) func aTOTPAccountShowsTheCodeOfThePhonesClock(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()

        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)

        #expect(account.kind == .totp && account.issuer == "ACME" && account.label == "alice" && account.period == 30)
        #expect(account.algorithm == "SHA1" && account.digits == 6 && account.counter == nil && account.createdAt == phone.clock.now())
        #expect(try await phone.phones.otpAccounts(phoneId: id) == [account])
        // the test clock starts at 1,800,000,000 s: the first second of a 30 s step
        #expect(try await phone.phones.otpCode(phoneId: id, accountId: account.id) == OTPCode(code: "768147", validFor: 30, period: 30))
        phone.clock.advance(29)
        #expect(try await phone.phones.otpCode(phoneId: id, accountId: account.id) == OTPCode(code: "768147", validFor: 1, period: 30))
        phone.clock.advance(1)
        #expect(try await phone.phones.otpCode(phoneId: id, accountId: account.id).code == "050219")
    }

    @Test(arguments: TestEngine.available) func anHOTPAccountMovesOnlyWhenAskedForTheNextCode(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.hotp)
        #expect(account.kind == .hotp && account.issuer == nil && account.counter == 3 && account.period == nil)

        #expect(try await phone.phones.otpCode(phoneId: id, accountId: account.id) == OTPCode(code: "969429", counter: 3))
        #expect(try await phone.phones.otpCode(phoneId: id, accountId: account.id) == OTPCode(code: "969429", counter: 3))
        #expect(try await phone.phones.nextOTPCode(phoneId: id, accountId: account.id) == OTPCode(code: "338314", counter: 4))
        #expect(try await phone.phones.otpAccounts(phoneId: id).first?.counter == 4)
    }

    @Test(arguments: TestEngine.available) func aTOTPAccountHasNoNextCode(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        let error = await #expect(throws: PhoneError.self) { try await phone.phones.nextOTPCode(phoneId: id, accountId: account.id) }
        #expect(error?.code == "OTP_ACCOUNT_NOT_COUNTER_BASED" && error?.kind == .conflict)
    }

    /// The same key for the same issuer and label is one account: a second import is refused and
    /// names the one kept. Another label with the same key is another account.
    @Test(arguments: TestEngine.available) func theSameAccountIsImportedOnce(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.importOTPAccount(phoneId: id, uri: "otpauth://totp/ACME%3A%20alice?secret=\(Self.secret.lowercased())&period=60")
        }
        #expect(error?.code == "OTP_ACCOUNT_EXISTS" && error?.kind == .conflict)
        #expect(error?.message == "this phone already has the account ACME: alice (\(account.id)) with this key")
        #expect(try await phone.phones.otpAccounts(phoneId: id) == [account])

        _ = try await phone.phones.importOTPAccount(phoneId: id, uri: "otpauth://totp/ACME:carol?secret=\(Self.secret)")
        let other = try await phone.newPhone()
        _ = try await phone.phones.importOTPAccount(phoneId: other, uri: Self.totp)
        #expect(try await phone.phones.otpAccounts(phoneId: id).count == 2)
    }

    @Test(arguments: TestEngine.available) func aRefusedKeyURIChangesNothing(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        for (uri, code) in [
            ("otpauth://totp/x?secret=GEZDGNBV1", "OTPAUTH_INVALID_SECRET"),
            ("otpauth://totp/x?secret=\(Self.secret)&digits=7", "OTPAUTH_INVALID_DIGITS"),
            ("otpauth://hotp/x?secret=\(Self.secret)", "OTPAUTH_MISSING_COUNTER"),
        ] {
            let error = await #expect(throws: PhoneError.self) { try await phone.phones.importOTPAccount(phoneId: id, uri: uri) }
            #expect(error?.code == code && error?.kind == .badRequest)
        }
        #expect(try await phone.phones.otpAccounts(phoneId: id).isEmpty)
    }

    @Test(arguments: TestEngine.available) func unknownPhonesAndAccountsAreNotFound(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let noPhone = await #expect(throws: PhoneError.self) { try await phone.phones.importOTPAccount(phoneId: "nope", uri: Self.totp) }
        #expect(noPhone?.code == "PHONE_NOT_FOUND")
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        // another phone's account is not this phone's
        let other = try await phone.newPhone()
        for operation in [
            { try await phone.phones.otpCode(phoneId: other, accountId: account.id) },
            { try await phone.phones.nextOTPCode(phoneId: other, accountId: account.id) },
        ] {
            let error = await #expect(throws: PhoneError.self) { try await operation() }
            #expect(error?.code == "OTP_ACCOUNT_NOT_FOUND")
        }
        let error = await #expect(throws: PhoneError.self) { try await phone.phones.deleteOTPAccount(phoneId: other, accountId: account.id) }
        #expect(error?.code == "OTP_ACCOUNT_NOT_FOUND")
        #expect(try await phone.phones.otpAccounts(phoneId: id) == [account])
    }

    @Test(arguments: TestEngine.available) func deletedAccountsAndPhonesTakeTheirKeysWithThem(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        try await phone.phones.deleteOTPAccount(phoneId: id, accountId: account.id)
        #expect(try await phone.phones.otpAccounts(phoneId: id).isEmpty)

        _ = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.hotp)
        _ = try await phone.phones.deletePhone(id: id)
        #expect(try await phone.store.readAll { try $0.fetchOne(Int.self, "SELECT count(*) FROM otpAccount", []) } == 0)
    }

    /// The SDK's reset (remove all accounts) is the nextAuth accounts': the OTP accounts, another
    /// app's on a real phone, stay.
    @Test(arguments: TestEngine.available) func removingAllAccountsLeavesTheOTPAccounts(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        #expect(try await phone.phones.removeAllAccounts(phoneId: id).accounts.isEmpty)
        #expect(try await phone.phones.otpAccounts(phoneId: id) == [account])
    }

    /// The screen hears of every change (its list and its flow log), with the account and never its key.
    @Test(arguments: TestEngine.available) func theScreenIsToldOfEachChange(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        var events = phone.phones.events.subscribe(id).makeAsyncIterator()

        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.hotp)
        _ = try await phone.phones.nextOTPCode(phoneId: id, accountId: account.id)
        try await phone.phones.deleteOTPAccount(phoneId: id, accountId: account.id)

        var advanced = account
        advanced.counter = 4
        for expected in [
            OTPAccountChange(change: .imported, account: account), OTPAccountChange(change: .advanced, account: advanced),
            OTPAccountChange(change: .deleted, account: advanced),
        ] {
            #expect(await events.next() == .otpAccount(expected))
        }
    }

    @Test(arguments: TestEngine.available) func theStateExportCarriesTheKeysSealed(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let plain = try await phone.newPhone()
        let totp = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        phone.clock.advance(1)
        let hotp = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.hotp)

        let exported = try await phone.store.exported()
        #expect(exported.phones.first { $0.id == plain }?.otpAccounts == nil, "a phone without OTP accounts exports as before")
        #expect(exported.phones.first { $0.id == id }?.otpAccounts?.map(\.id) == [totp.id, hotp.id])
        let key = Data("12345678901234567890".utf8)
        #expect(exported.otpSecrets == [totp.id: key, hotp.id: key])

        let state = ExportedState(
            phones: exported.phones, backend: .init(accounts: [], devices: [], secondFactors: [], policy: nil, serverFlags: []),
            secrets: .init(
                phones: exported.phoneSecrets, accounts: exported.accountSecrets, serverSecretKey: Data(count: 64), backendOTPKeys: [:],
                pinPublicKeys: [:], otpSecrets: exported.otpSecrets))
        let loaded = try await engine.open(PhoneStore.self)
        try await loaded.load(state, replacing: false)
        #expect(try await loaded.otpAccounts(phoneId: id).map(\.account) == [totp, hotp])
        #expect(try await loaded.otpAccounts(phoneId: id).map(\.secret) == [key, key])
    }

    @Test(arguments: TestEngine.available) func anExportedAccountIsHeldToTheKeyURIsBounds(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let account = try await phone.phones.importOTPAccount(phoneId: id, uri: Self.totp)
        let exported = try await phone.store.exported()
        func state(_ change: (inout ExportedState.OTPAccount) -> Void, secret: Data = Data("12345678901234567890".utf8)) -> ExportedState {
            var phones = exported.phones
            change(&phones[0].otpAccounts![0])
            return ExportedState(
                phones: phones, backend: .init(accounts: [], devices: [], secondFactors: [], policy: nil, serverFlags: []),
                secrets: .init(
                    phones: exported.phoneSecrets, accounts: [:], serverSecretKey: Data(count: 64), backendOTPKeys: [:], pinPublicKeys: [:],
                    otpSecrets: [account.id: secret]))
        }
        for (bad, reason) in [
            (state { $0.digits = 7 }, "digits must be 6 or 8"), (state { $0.kind = "hotp" }, "kind 'hotp' is not totp with a period"),
            (state { $0.algorithm = "MD5" }, "'MD5' is not one of"), (state({ _ in }, secret: Data(count: 9)), "the secret is 72 bits"),
            (state { $0.label = "" }, "names no account"),
        ] {
            let error = #expect(throws: StateExportError.self) { try PhoneStore.check(bad) }
            #expect(error?.code == "EXPORT_INVALID" && error?.message.contains("OTP account \(account.id)") == true)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        }
    }
}
