import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Phone
import Testing
import WebApp

/// otpauth:// key URIs through every door that takes a scanned code (QR text, a link, a QR
/// picture), the OTP account routes, and what is refused: nothing stored after a refusal, and no
/// answer carrying the secret.
@Suite(.timeLimit(.minutes(2))) struct OTPAccountRouteTests {
    /// RFC 4226's key, "12345678901234567890".
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    struct Imported: Decodable {
        let otpAccount: OTPAccount
    }

    struct AccountList: Decodable {
        let accounts: [OTPAccount]
    }

    @Test func keyURIsComeInThroughEveryDoorAndGiveTheirCodes() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let base = "/api/phones/\(phone.id)"
            var bodies: [Data] = []

            let totp = try await client.send(
                .post, "\(base)/oob", json: ["qr": "otpauth://totp/ACME:alice?secret=\(Self.secret)&issuer=ACME&digits=8"])
            #expect(totp.status == .created)
            let hotp = try await client.send(.post, "\(base)/oob", json: ["link": "otpauth://hotp/bob?secret=\(Self.secret)&counter=0"])
            #expect(hotp.status == .created)
            let picture = try QRImageTests.Picture(["otpauth://totp/carol?secret=\(Self.secret)&algorithm=SHA256"]).png
            let pictured = try await QRImageTests.upload(client, phone.id, picture)
            #expect(pictured.status == .created)
            bodies += [totp.body, hotp.body, pictured.body]
            let accounts = try [totp, hotp, pictured].map { try $0.decode(Imported.self).otpAccount }
            #expect(accounts.map(\.label) == ["alice", "bob", "carol"])
            #expect(accounts.map(\.kind) == [.totp, .hotp, .totp] && accounts[0].issuer == "ACME" && accounts[2].algorithm == "SHA256")

            let list = try await client.send(.get, "\(base)/otp-accounts")
            bodies.append(list.body)
            #expect(Set(try list.decode(AccountList.self).accounts.map(\.id)) == Set(accounts.map(\.id)))

            let code = try await client.send(.get, "\(base)/otp-accounts/\(accounts[0].id)/code")
            let shown = try code.decode(OTPCode.self)
            #expect(shown.code.count == 8 && shown.period == 30 && (1...30).contains(shown.validFor ?? 0) && shown.counter == nil)
            let current = try await client.send(.get, "\(base)/otp-accounts/\(accounts[1].id)/code").decode(OTPCode.self)
            #expect(current.code == "755224" && current.counter == 0 && current.validFor == nil)
            let next = try await client.send(.post, "\(base)/otp-accounts/\(accounts[1].id)/next", json: [:])
            let moved = try next.decode(OTPCode.self)
            #expect(moved.code == "287082" && moved.counter == 1)
            let timeBased = try await client.send(.post, "\(base)/otp-accounts/\(accounts[0].id)/next", json: [:])
            #expect(timeBased.status == .conflict && timeBased.errorCode == "OTP_ACCOUNT_NOT_COUNTER_BASED")

            #expect(try await client.send(.delete, "\(base)/otp-accounts/\(accounts[2].id)").status == .noContent)
            let gone = try await client.send(.get, "\(base)/otp-accounts/\(accounts[2].id)/code")
            #expect(gone.status == .notFound && gone.errorCode == "OTP_ACCOUNT_NOT_FOUND")
            #expect(try await client.send(.get, "\(base)/otp-accounts").decode(AccountList.self).accounts.count == 2)
            bodies += [code.body, next.body]
            for body in bodies {
                let text = String(decoding: body, as: UTF8.self)
                #expect(!text.contains(Self.secret) && !text.contains("MTIzNDU2Nzg5MDEyMzQ1Njc4OTA"), "\(text)")
            }
        }
    }

    /// Each refusal answers its code and leaves the phone without an OTP account.
    @Test func refusedCodesStoreNothing() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let base = "/api/phones/\(phone.id)"
            let cases: [([String: Any], HTTPResponse.Status, String)] = [
                (["qr": "otpauth://pipush/PIPU0001?url=https%3A//pi.example/ttype/push&v=1"], .unprocessableContent, "UNSUPPORTED_CODE"),
                (["link": "pia://pipush/PIPU0001"], .unprocessableContent, "UNSUPPORTED_CODE"),
                (["qr": "otpauth://totp/x?secret=\(Self.secret)&algorithm=MD5"], .badRequest, "OTPAUTH_UNKNOWN_ALGORITHM"),
                (["link": "otpauth://hotp/x?secret=\(Self.secret)"], .badRequest, "OTPAUTH_MISSING_COUNTER"),
                (["qr": "otpauth://totp/x?secret=0000"], .badRequest, "OTPAUTH_INVALID_SECRET"),
                (["qr": "otpauth://steam/x?secret=\(Self.secret)"], .badRequest, "OTPAUTH_UNSUPPORTED_TYPE"),
            ]
            for (body, status, code) in cases {
                let answer = try await client.send(.post, "\(base)/oob", json: body)
                #expect(answer.status == status && answer.errorCode == code, "\(body)")
            }
            let privacyIDEA = try await client.send(.post, "\(base)/oob", json: ["qr": "pia://pipush/PIPU0001"])
            #expect(
                String(decoding: privacyIDEA.body, as: UTF8.self)
                    == #"{"error":{"code":"UNSUPPORTED_CODE","message":"privacyIDEA push tokens are not supported yet"}}"#)
            let picture = try QRImageTests.Picture(["otpauth://pipush/PIPU0001?v=1"]).png
            #expect(try await QRImageTests.upload(client, phone.id, picture).errorCode == "UNSUPPORTED_CODE")
            #expect(try await client.send(.get, "\(base)/otp-accounts").decode(AccountList.self).accounts.isEmpty)

            let totp = "otpauth://totp/ACME:alice?secret=\(Self.secret)"
            #expect(try await client.send(.post, "\(base)/oob", json: ["qr": totp]).status == .created)
            let again = try await client.send(.post, "\(base)/oob", json: ["link": totp])
            #expect(again.status == .conflict && again.errorCode == "OTP_ACCOUNT_EXISTS")
            #expect(try await client.send(.get, "\(base)/otp-accounts").decode(AccountList.self).accounts.count == 1)

            let unknown = "/api/phones/00000000-0000-4000-8000-000000000000"
            #expect(try await client.send(.post, "\(unknown)/oob", json: ["qr": totp]).errorCode == "PHONE_NOT_FOUND")
            #expect(try await client.send(.get, "\(unknown)/otp-accounts").errorCode == "PHONE_NOT_FOUND")
            #expect(try await client.send(.delete, "\(base)/otp-accounts/nope").errorCode == "OTP_ACCOUNT_NOT_FOUND")
            #expect(try await client.send(.post, "\(base)/otp-accounts/nope/next", json: ["x": 1]).errorCode == "BODY_NOT_EXPECTED")
        }
    }
}
