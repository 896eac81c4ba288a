import BackendAPI
import BlockingWork
import Foundation
import NIOCore
import PrivacyIDEA
import Retry
import Synchronization

/// The privacyIDEA app's exchanges with privacyIDEA servers: forms, not the backend's JSON, each on
/// the timeline like the backend's, a registration under the retry policy, and the tokens' RSA
/// keys made on their own lane.
struct PrivacyIDEAExchanges: Sendable {
    let wire: WireHTTPClient
    /// How a registration keeps trying a privacyIDEA it cannot reach.
    let retry: RetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let random: @Sendable () -> Double
    let retryObserver: @Sendable (_ operation: String) -> Void
    /// Where the tokens' RSA keys are made; nil: on the caller's thread (a phone of its own, in tests).
    let keyLane: WorkLane?

    /// An exchange under the phone's retry policy for what it does by itself: a privacyIDEA that
    /// cannot be reached is tried again, each wait told to `waiting` ("attempt 2 of 4 failed: the
    /// connection was refused; next in 2 s"), and only a refusal or the last failure ends it.
    /// `exchange` hears which attempt it is.
    func retried(
        _ exchange: @escaping @Sendable (_ attempt: Int) async throws(PhoneError) -> Data,
        waiting: @escaping @Sendable (_ attempt: Int, _ of: Int, _ nextIn: Double?, _ failure: String?) async -> Void
    ) async throws(PhoneError) -> Data {
        let observer = retryObserver
        let retrying = Retrying(policy: retry, sleep: sleep, random: random, onRetry: { observer("privacyIDEA") })
        let lastRefusal = Mutex<PhoneError?>(nil)
        let (answer, attempts) = await retrying.run { attempt -> AttemptOutcome<Data> in
            do throws(PhoneError) { return .success(try await exchange(attempt)) } catch {
                lastRefusal.withLock { $0 = error }
                let reason = "\(error.code): \(error.message)"
                return error.isRetryable ? .retryable(reason: reason, retryAfter: error.retryAfter) : .failure(reason: reason)
            }
        } observe: { record, nextWait in
            await waiting(record.number, retrying.policy.maxRetries + 1, nextWait?.seconds, lastRefusal.withLock { $0?.message })
        }
        if let answer { return answer }
        let refusal = lastRefusal.withLock { $0 } ?? .serverConnection("no attempt was made")
        guard refusal.isRetryable else { throw refusal }
        throw PhoneError(
            .badGateway, refusal.code, "privacyIDEA could not be reached in \(attempts.count) attempts: \(refusal.message)",
            sdkCode: refusal.sdkCode)
    }

    /// A poll for the token's open challenges, signed with its key: their fields as privacyIDEA
    /// lists them, oldest first.
    func poll(_ token: PushTokenRecord, at time: Date) async throws(PhoneError) -> [[String: PushChallenge.Field]] {
        let key = try Self.tokenKey(token)
        let fields: PushTokenRequests.Fields
        do { fields = try PushTokenRequests.poll(serial: token.serial, at: time, key: key) } catch {
            throw .crypto(error.message)
        }
        let answer = try await send(
            "GET", token.url + "?" + PushTokenRequests.encoded(fields), form: nil, sslVerify: token.sslVerify, phoneId: token.phoneId)
        do { return try PrivacyIDEAAnswers.challenges(answer) } catch { throw .privacyIDEARefused(error.message) }
    }

    /// The user's answer to a challenge, signed with the token's key; privacyIDEA must find the
    /// open challenge it fits. An accept may bring a code to show (`push_code_to_phone`).
    func answer(_ answer: PushAnswer, to challenge: PushChallenge, token: PushTokenRecord) async throws(PhoneError)
        -> PrivacyIDEAAnswers.DisplayCode?
    {
        let key = try Self.tokenKey(token)
        let form: PushTokenRequests.Fields
        do { form = try PushTokenRequests.answer(challenge, answer, key: key) } catch { throw .crypto(error.message) }
        let reply = try await send("POST", challenge.url, form: form, sslVerify: token.sslVerify, phoneId: token.phoneId)
        try Self.requireAccepted(reply, else: "privacyIDEA found no open challenge that this answer fits")
        return PrivacyIDEAAnswers.displayCode(reply)
    }

    /// Tells the token's privacyIDEA the phone's new FCM token, signed with the token's key; part
    /// of a device information change, under its retry policy.
    func updateFCMToken(_ token: PushTokenRecord, to fcmToken: String, at time: Date) async throws(PhoneError) {
        let key = try Self.tokenKey(token)
        let form: PushTokenRequests.Fields
        do { form = try PushTokenRequests.fcmTokenUpdate(serial: token.serial, newToken: fcmToken, at: time, key: key) } catch {
            throw .crypto(error.message)
        }
        let reply = try await send("POST", token.url, form: form, sslVerify: token.sslVerify, phoneId: token.phoneId)
        try Self.requireAccepted(reply, else: "privacyIDEA did not take the new FCM token for \(token.serial)")
    }

    /// Refuses a reply privacyIDEA refused, or one that does not say it did what was asked
    /// (`value: true` by default; the container endpoints' `{"success": true}` with `succeeded`).
    static func requireAccepted(
        _ reply: Data, by reading: (Data) throws(PrivacyIDEAError) -> Bool = PrivacyIDEAAnswers.accepted, else refusal: String
    ) throws(PhoneError) {
        let accepted: Bool
        do { accepted = try reading(reply) } catch { throw .privacyIDEARefused(error.message) }
        guard accepted else { throw .privacyIDEARefused(refusal) }
    }

    /// One exchange with a privacyIDEA server, on the timeline like the backend's; a server that
    /// does not answer, or answers with a status privacyIDEA uses for refusals, is an error here.
    func send(
        _ method: String, _ url: String, form: PushTokenRequests.Fields?, sslVerify: Bool, phoneId: String, attempt: Int = 1
    ) async throws(PhoneError) -> Data {
        let wire = sslVerify ? wire : wire.withoutCertificateChecks
        let answer: WireHTTPClient.Answer
        do {
            answer = try await wire.send(
                method, url, contentType: form == nil ? nil : "application/x-www-form-urlencoded",
                bytes: Data((form.map(PushTokenRequests.encoded) ?? "").utf8),
                label: .init(from: .phone, to: .privacyIDEA, phoneId: phoneId, attempt: attempt))
        } catch {
            throw error.timedOut ? .serverTimeout(error.description) : .serverConnection(error.description)
        }
        let body = Data(buffer: answer.body)
        guard answer.isSuccess || answer.status == 400 else {
            do { try PrivacyIDEAAnswers.checkStatus(body) } catch { throw .privacyIDEARefused(error.message) }
            throw .privacyIDEARefused("privacyIDEA answered HTTP \(answer.status)")
        }
        return body
    }

    /// A 4096-bit RSA key holds a core for up to a second: made in the key lane, never on an
    /// actor nor on the threads that answer requests.
    func newTokenKey() async throws(PhoneError) -> PushTokenKey {
        guard let keyLane else {
            do { return try PushTokenKey.generate() } catch { throw .crypto(error.message) }
        }
        do {
            return try await keyLane.run { _ in try PushTokenKey.generate() }
        } catch let busy as WorkLane.Busy {
            throw .busy(retryAfter: busy.retryAfter, doing: "privacyIDEA tokens are being made", retry: "scan the code again")
        } catch let refusal as PrivacyIDEAError {
            throw .crypto(refusal.message)
        } catch {
            throw .crypto("\(error)")
        }
    }

    static func tokenKey(_ token: PushTokenRecord) throws(PhoneError) -> PushTokenKey {
        do { return try PushTokenKey(pkcs8: token.tokenKey) } catch { throw .crypto(error.message) }
    }
}
