import BackendAPI
import Broadcast
import Faults
import Foundation
import OutOfBand
import Retry
import SodiumKit
import Storage

/// The demo authentication server with its Second Factor Server. Phones reach it only through
/// its HTTP routes; the console reads sessions and watches `events`.
public final class DemoBackend: Sendable {
    public struct Configuration: Sendable {
        public var serverName: String
        public var sessionLifetime: TimeInterval
        public var secondFactorPolicy: SecondFactorPolicy
        /// The FCM-compatible push endpoint's base URL; nil: this server's own push service.
        public var pushURL: String?
        public var pushProject: String
        /// Retries of a push that FCM says may succeed later (429, 500, 503, no connection).
        public var pushRetry: RetryPolicy
        /// Consecutive wrong offline OTPs an account takes before its OTP is locked (at most 100).
        public var maxOTPFailures: Int
        /// Hears each retry of a push the backend plans, for the metrics.
        public var retryObserver: @Sendable () -> Void = {}

        public static let defaultPushRetry = RetryPolicy.exponential(
            maxRetries: 3, initialDelay: .milliseconds(500), maximumDelay: .seconds(4), multiplier: 2)

        public init(
            serverName: String = "AuthPhone demo backend", sessionLifetime: TimeInterval = 300,
            secondFactorPolicy: SecondFactorPolicy = .nextAuth, pushURL: String? = nil, pushProject: String = "authphone",
            pushRetry: RetryPolicy = defaultPushRetry, maxOTPFailures: Int = OTPFailureLimit.maximum
        ) {
            self.serverName = serverName
            self.sessionLifetime = sessionLifetime
            self.secondFactorPolicy = secondFactorPolicy
            self.pushURL = pushURL
            self.pushProject = pushProject
            self.pushRetry = pushRetry
            self.maxOTPFailures = maxOTPFailures
        }
    }

    let store: BackendStore
    let configuration: Configuration
    /// The backend's own base URL (known once the server listens), for redeem URLs.
    let baseURL: @Sendable () -> String
    let now: @Sendable () -> Date
    let serverKey: Ed25519.KeyPair
    let wire: WireHTTPClient
    let pushRetrying: Retrying
    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void
    /// Every change of a session, for the console.
    public let events = Broadcaster<BackendSession>()
    /// Every change of a session without its view, for what counts and logs them (`/metrics`,
    /// the log), which is always listening: building the view, with its QR text and deep link,
    /// for it alone was more than 1 % of the server's CPU under load.
    public let changes = Broadcaster<SessionChange>()
    /// The pushes a console's request left to `sendDeferredPushes`; bounded, as every stream here.
    let deferredPushes = AsyncStream<DeferredPush>.makeStream(bufferingPolicy: .bufferingNewest(1024))

    public init(
        store: BackendStore, configuration: Configuration = .init(),
        baseURL: @escaping @Sendable () -> String, now: @escaping @Sendable () -> Date = Date.init,
        wire: WireHTTPClient = WireHTTPClient(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        faults: FaultInjector? = nil
    ) async throws {
        self.store = store
        self.wire = wire
        self.faults = faults
        self.sleep = sleep
        pushRetrying = Retrying(policy: configuration.pushRetry, sleep: sleep, onRetry: configuration.retryObserver)
        self.configuration = configuration
        self.baseURL = baseURL
        self.now = now
        serverKey = try Ed25519.KeyPair(secretKey: await store.serverSecretKey(now: now()) { try Ed25519.KeyPair.generate().exportSecretKey() })
    }

    /// `POST /api/reset`: the backend as new, with its own key.
    public func reset() async throws {
        try await store.eraseTestData()
    }

    /// The backend as its phones see it: its name, its URL and its key.
    public var server: WireServer {
        WireServer(name: configuration.serverName, url: baseURL(), publicKey: Base64URL.encode(serverKey.publicKey))
    }

    // MARK: checks the flows share

    /// How far a phone's clock may be from the server's in a signed request that carries a
    /// timestamp instead of a server challenge: an old request cannot be replayed much later.
    static let timestampSkew: TimeInterval = 300

    static func checkTimestamp(_ timestamp: Date, now: Date) throws(BackendError) {
        guard abs(timestamp.timeIntervalSince(now)) <= timestampSkew else {
            throw BackendError(.badRequest, "STALE_REQUEST", "the request's timestamp is more than \(Int(timestampSkew)) s from the server's clock")
        }
    }

    /// The session this device redeemed, where its machine takes `event` now.
    static func activeSession(
        _ tx: BackendStore.Transaction, id: String, device: String, for event: SessionMachine.Event, now: Date
    ) throws -> SessionRecord {
        guard let record = try tx.session(id: id) else { throw BackendError.sessionNotFound(id) }
        guard record.deviceId == device else { throw BackendError.wrongDevice }
        try record.machine.check(event, at: now)
        return record
    }

    /// An account of the requesting device: another device's is as unknown as a missing one.
    static func deviceAccount(_ tx: BackendStore.Transaction, id: String, device: String) throws -> AccountRecord {
        guard let account = try tx.account(id: id), account.deviceId == device else {
            throw BackendError.accountNotFound(id)
        }
        return account
    }

    /// The request is signed by the key of the device that redeemed the session.
    static func checkDeviceSignature(_ signature: String, _ record: SessionRecord, _ message: [UInt8]) throws(BackendError) {
        guard let key = record.devicePublicKey, verify(signature, message, key: key) else { throw BackendError.invalidSignature }
    }

    static func decodePublicKey(_ text: String, field: String) throws(BackendError) -> Data {
        guard let key = Base64URL.decode(text), key.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid(field, "must be a base64url Ed25519 public key")
        }
        return Data(key)
    }

    static func verify(_ signature: String, _ message: [UInt8], key: Data) -> Bool {
        guard let bytes = Base64URL.decode(signature) else { return false }
        return Ed25519.verify(signature: bytes, message: message, publicKey: Array(key))
    }

    static func checkText(_ text: String, field: String, limit: Int) throws(BackendError) {
        if let problem = ReadableText.problem(in: text, limit: limit) { throw BackendError.invalid(field, problem) }
    }

    static func checkName(_ name: String, field: String, limit: Int) throws(BackendError) {
        if let problem = ReadableText.nameProblem(in: name, limit: limit) { throw BackendError.invalid(field, problem) }
    }

    static func checkDeviceId(_ id: String) throws(BackendError) {
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw BackendError.invalid("deviceId", "must be 1 to 128 printable ASCII characters")
        }
    }

    static func randomToken() throws(BackendError) -> String {
        do { return Base64URL.encode(try Sodium.randomBytes(32)) } catch {
            throw BackendError(.unavailable, "CRYPTO_UNAVAILABLE", error.description)
        }
    }

    // MARK: what the console sees, and the database

    /// The session as the console and a relying party see it, its expiry read at `time`.
    func view(_ record: SessionRecord, at time: Date) -> BackendSession {
        BackendSession(record, payload: payload(for: record), now: time)
    }

    /// No fallback URL: a QR code that sends phones elsewhere would fail where nobody looks. The
    /// server stops at start instead when its base URL is none (`ServerURL`).
    func payload(for record: SessionRecord) -> OutOfBandPayload {
        guard let redeemURL = URL(string: baseURL() + BackendRoutes.redeem) else {
            preconditionFailure("the backend's base URL \(baseURL()) makes no redeem URL")
        }
        return OutOfBandPayload(redeemData: .init(token: record.token, redeemURL: redeemURL))
    }

    /// The session's view for the caller's answer, sent to any console watching too. The
    /// change and the view read the clock once, so they cannot disagree on an expiry.
    func publish(_ record: SessionRecord) -> BackendSession {
        let time = now()
        changes.send(SessionChange(record, now: time))
        let session = view(record, at: time)
        events.send(session)
        return session
    }

    /// Tells what counts sessions, and a watching console, how the session stands; with no
    /// console watching (a load test, a script) the view, with its QR text, is not built at all.
    func notify(_ record: SessionRecord) {
        let time = now()
        changes.send(SessionChange(record, now: time))
        guard events.subscriberCount > 0 else { return }
        events.send(view(record, at: time))
    }

    /// Runs a write transaction; a thrown BackendError rolls it back and passes through, any
    /// other failure becomes a 503 with the reason.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (BackendStore.Transaction) throws -> T) async throws(BackendError) -> T {
        do {
            return try await store.write(body)
        } catch let error as BackendError {
            throw error
        } catch {
            throw (isStorageFull(error) ? BackendError.storageFull : .storageFailed).because(PostgresLocation.cause(of: error))
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (BackendStore.Transaction) throws -> T) async throws(BackendError) -> T {
        do { return try await store.read(body) } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError.storageFailed.because(PostgresLocation.cause(of: error))
        }
    }
}
