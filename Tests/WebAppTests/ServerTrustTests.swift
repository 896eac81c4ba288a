import AsyncHTTPClient
import Backend
import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import OutOfBand
import Phone
import SodiumKit
import Synchronization
import Testing
import WebApp
import WireJSON

/// What a phone refuses from a backend on its allow-list: a session its pinned key did not sign,
/// a text the backend should never have sent, a redirect elsewhere. Each backend here is a server
/// of the test's own (or a real one restarted), since the phone reaches backends over HTTP only.
@Suite(.timeLimit(.minutes(2))) struct ServerTrustTests {
    /// Starts a session at `base` on a phone of its own; the refusal it ends in.
    static func refusal(redeemingAt base: String) async throws -> PhoneError? {
        let phones = try remotePhones(allowing: { [base] })
        let phone = try await phones.createPhone(name: "remote")
        let error = await #expect(throws: PhoneError.self) {
            try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: payload(redeemingAt: base))
        }
        #expect(await phones.sdk.currentFlow(phoneId: phone.id) == nil)
        return error
    }

    @Test(arguments: ["hidden\u{202E}txet", "nul\u{0}", "   ", String(repeating: "x", count: ReadableText.maximumTransactionLength + 1)])
    func aTransactionTextTheBackendShouldHaveRefusedIsNotShown(_ text: String) async throws {
        let key = try Ed25519.KeyPair.generate()
        let error = try await withServer({ _, base in try redeemAnswer(at: base, serverKey: key, type: .transaction, transaction: text) }) { base in
            try await Self.refusal(redeemingAt: base)
        }
        #expect(error?.code == "SERVER_ERROR")
        #expect(error?.message.contains("the transaction text must") == true)
    }

    /// An answer the phone cannot read is named by its field, without the decoder's internals.
    @Test func anUnreadableAnswerIsDescribedWithoutDecoderInternals() async throws {
        let error = try await withServer({ _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"sessionId": 5}"#)))
        }) { base in try await Self.refusal(redeemingAt: base) }
        #expect(error?.code == "SERVER_ERROR")
        #expect(error?.message == "the server answered something unexpected: the answer could not be read: the field 'sessionId' must be a string")
    }

    @Test func aSessionNotSignedByTheServersKeyIsRefused() async throws {
        let (key, forger) = (try Ed25519.KeyPair.generate(), try Ed25519.KeyPair.generate())
        let error = try await withServer({ _, base in try redeemAnswer(at: base, serverKey: key, signedBy: forger) }) { base in
            try await Self.refusal(redeemingAt: base)
        }
        #expect(error?.code == "SERVER_AUTHENTICATION_FAILED")
        #expect(error?.sdkCode == 48)
    }

    /// The backend restarted at the same URL with a fresh database, so with a new server key: the
    /// phone refuses the login with 48 and its account stays as it was.
    @Test func aBackendAtTheSameURLWithAnotherKeyIsRefused() async throws {
        let backendURL = Mutex("")
        let phones = try remotePhones(allowing: { [backendURL.withLock { $0 }] })
        let phone = try await phones.createPhone(name: "remote")
        let port = try await buildApplication(testConfiguration()).test(.live) { client in
            let port = try #require(client.port)
            backendURL.withLock { $0 = "http://127.0.0.1:\(port)" }
            let enrolment = try await client.startSession("enrol", user: "alice")
            _ = try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: OutOfBandDecoder.decode(qrText: enrolment.qrText))
            try await phones.sdk.confirmSession(phoneId: phone.id, accountID: nil)
            try await phones.sdk.inputPin(phoneId: phone.id, pin: GuardedBytes(copying: Array("260418".utf8)))
            #expect(await phones.sdk.currentFlow(phoneId: phone.id)?.state == .done)
            return port
        }
        let enrolled = try await phones.phone(id: phone.id)
        #expect(enrolled.accounts.count == 1)

        var configuration = testConfiguration()
        configuration.port = port
        try await serving(configuration) { base in
            func start(_ type: String) async throws -> BackendSession {
                var request = HTTPClientRequest(url: base + "/api/backend/sessions")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"type": "\#(type)", "userId": "alice"}"#))
                let created = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                #expect(created.status == .created)
                return try WireJSON.decoder().decode(BackendSession.self, from: try await created.body.collect(upTo: 1 << 20))
            }
            // the fresh backend knows alice again from another phone, so it starts her login
            let another = try await phones.createPhone(name: "another")
            _ = try await phones.sdk.startOutOfBand(phoneId: another.id, payload: OutOfBandDecoder.decode(qrText: try await start("enrol").qrText))
            try await phones.sdk.confirmSession(phoneId: another.id, accountID: nil)
            try await phones.sdk.inputPin(phoneId: another.id, pin: GuardedBytes(copying: Array("260418".utf8)))
            #expect(await phones.sdk.currentFlow(phoneId: another.id)?.state == .done)
            let login = try await start("login")
            let error = await #expect(throws: PhoneError.self) {
                try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: OutOfBandDecoder.decode(qrText: login.qrText))
            }
            #expect(error?.code == "SERVER_AUTHENTICATION_FAILED")
            #expect(error?.sdkCode == 48)
        }
        let after = try await phones.phone(id: phone.id)
        #expect(after.accounts == enrolled.accounts)
        #expect(after.flow == enrolled.flow)
    }

    /// The backend's refusals that nextAuth numbers keep their code and gain the number
    /// (docs/behaviour.md#error-codes); others keep none.
    @Test(
        arguments: [
            ("ENROL_QR_EXPIRED", 410, 41), ("ACCOUNT_NOT_FOUND", 404, 48), ("TOKEN_UNKNOWN", 404, 64), ("WRONG_DEVICE", 403, nil),
        ] as [(String, Int, Int?)])
    func aRefusalNextAuthNumbersCarriesItsNumber(code: String, status: Int, sdkCode: Int?) async throws {
        let error = try await withServer({ _, _ in
            Response(
                status: .init(code: status), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"error": {"code": "\#(code)", "message": "refused"}}"#)))
        }) { base in try await Self.refusal(redeemingAt: base) }
        #expect(error?.code == code)
        #expect(error?.sdkCode == sdkCode)
    }

    /// Server parameters the phone cannot read (a key that is no Ed25519 key, a URL that is no
    /// URL) are nextAuth's "server parameters parse error" (67), not a failed signature.
    @Test(arguments: ["not base64!", "c2hvcnQ"])
    func unreadableServerParametersAre67(publicKey: String) async throws {
        let error = try await withServer({ _, base in
            let answer = RedeemResponse(
                sessionId: "s", type: .login, expiresAt: Date().addingTimeInterval(300),
                server: WireServer(name: "Scripted backend", url: base, publicKey: publicKey), announceInfo: [:], displayName: nil,
                existingAccounts: nil, userId: "alice", transaction: nil, challenge: "c", serverSignature: "x")
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(data: try WireJSON.encoder().encode(answer))))
        }) { base in try await Self.refusal(redeemingAt: base) }
        #expect(error?.code == "SERVER_PARAMETERS_PARSE_ERROR")
        #expect(error?.sdkCode == 67)
    }

    /// A backend that takes the request and does not answer within the phone's time limit is a
    /// time-out (50), which the phone may try again; a refused connection stays 70.
    @Test func noAnswerInTimeIsATimeOut() async throws {
        let error = try await withServer({ _, base in
            try await Task.sleep(for: .seconds(2))  // the network made slow on purpose
            return try redeemAnswer(at: base, serverKey: try Ed25519.KeyPair.generate())
        }) { base in
            let phones = PhoneService(
                store: try .inMemory(),
                configuration: .init(
                    allowedBackends: { [base] }, pinDerivation: PinKeyDerivation(profile: .fast), requestTimeout: .milliseconds(300)))
            let phone = try await phones.createPhone(name: "remote")
            return await #expect(throws: PhoneError.self) {
                try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: payload(redeemingAt: base))
            }
        }
        #expect(error?.code == "SERVER_TIMEOUT")
        #expect(error?.sdkCode == 50)
        #expect(error?.isRetryable == true)
    }

    /// An allowed backend that answers the redeem with 307 to another server: the phone's signed
    /// request does not follow it, the other server hears nothing, and the error says why.
    @Test func thePhoneFollowsNoRedirect() async throws {
        let hits = Hits()
        let key = try Ed25519.KeyPair.generate()
        let error = try await withServer({ _, base in
            hits.add()
            return try redeemAnswer(at: base, serverKey: key)
        }) { elsewhere in
            try await withServer({ _, _ in
                Response(status: .temporaryRedirect, headers: [.location: elsewhere + BackendRoutes.redeem])
            }) { allowed in try await Self.refusal(redeemingAt: allowed) }
        }
        #expect(error?.code == "SERVER_ERROR")
        #expect(error?.httpStatus == 307)
        #expect(error?.message.contains("a redirect, which the phone does not follow") == true)
        #expect(hits.count == 0)
    }
}
