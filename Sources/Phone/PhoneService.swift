import AsyncHTTPClient
import AuthFlow
import BackendAPI
import BlockingWork
import Broadcast
import Faults
import Foundation
import NIOCore
import OTP
import OutOfBand
import Retry
import SodiumKit
import Synchronization

/// Every phone of this server as a device with its apps on it (docs/architecture.md): the phones
/// themselves, their settings and sensors, their device information and FCM token (under the
/// retry policy), their local data and auto-answer rules; the SDK app (`sdk`) and privacyIDEA's
/// app (`privacyIDEA`) run on them. Key derivation and HTTP run outside the actors, so one slow
/// phone does not hold up the others.
public actor PhoneService {
    public struct Configuration: Sendable {
        /// Origins (`scheme://host:port`) a phone may talk to; checked before any connection.
        public var allowedBackends: @Sendable () -> [String]
        public var pinDerivation: PinKeyDerivation
        public var pinPolicy: PinPolicy
        public var requestTimeout: TimeAmount
        /// The `Authorization` header for a backend URL (this server's access key, to itself only).
        public var authorization: @Sendable (String) -> String?
        /// Hears each exchange with a backend once, for the timeline.
        public var observe: WireExchange.Observer?
        /// The retry policy of a DeviceInformationChange the phone makes by itself (a refreshed
        /// FCM token), and of one a caller gives none for.
        public var deviceChangeRetry: RetryPolicy
        /// How the phone keeps trying a backend it could not reach to fetch a scanned session.
        public var sessionFetchRetry: RetryPolicy
        /// Waits between retries and their jitter: test doubles run a schedule without sleeping.
        public var sleep: @Sendable (Duration) async throws -> Void
        public var random: @Sendable () -> Double
        /// Sees every flow the phones publish (the server's metrics and logs count starts and ends).
        public var flowObserver: @Sendable (_ phoneId: String, Flow) -> Void = { _, _ in }
        /// Hears each retry the phones plan (`deviceInformation`, `sessionFetch`), for the metrics.
        public var retryObserver: @Sendable (_ operation: String) -> Void = { _ in }
        /// Where PINs' keys are derived: Argon2id holds a thread for tens of milliseconds, which
        /// must not be one that answers requests. Nil: on the caller's thread (a phone of its own,
        /// in tests).
        public var pinLane: WorkLane?
        /// Where privacyIDEA tokens' RSA keys are made: a 4096-bit key holds a core for up to a
        /// second. Nil: on the caller's thread (a phone of its own, in tests).
        public var keyLane: WorkLane?

        public static let defaultDeviceChangeRetry = RetryPolicy.exponential(
            maxRetries: 3, initialDelay: .seconds(1), maximumDelay: .seconds(8), multiplier: 2)
        public static let defaultSessionFetchRetry = RetryPolicy.exponential(
            maxRetries: 8, initialDelay: .seconds(1), maximumDelay: .seconds(30), multiplier: 2)

        public init(
            allowedBackends: @escaping @Sendable () -> [String], pinDerivation: PinKeyDerivation = .init(profile: .interactive),
            pinPolicy: PinPolicy = .default, requestTimeout: TimeAmount = .seconds(10),
            authorization: @escaping @Sendable (String) -> String? = { _ in nil }, observe: WireExchange.Observer? = nil,
            deviceChangeRetry: RetryPolicy = defaultDeviceChangeRetry,
            sessionFetchRetry: RetryPolicy = defaultSessionFetchRetry,
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.allowedBackends = allowedBackends
            self.pinDerivation = pinDerivation
            self.pinPolicy = pinPolicy
            self.requestTimeout = requestTimeout
            self.authorization = authorization
            self.observe = observe
            self.deviceChangeRetry = deviceChangeRetry
            self.sessionFetchRetry = sessionFetchRetry
            self.sleep = sleep
            self.random = random
        }
    }

    let store: PhoneStore
    let configuration: Configuration
    let now: @Sendable () -> Date
    /// Each phone's screen: flow updates, requests and local-data changes, per phone id.
    public nonisolated let events = KeyedBroadcaster<String, PhoneEvent>()
    /// What the phone's apps share.
    let device: Device
    /// The retried operation each phone is running (one at a time), to cancel it.
    var operations: [String: Task<Result<DeviceChangeResult, PhoneError>, Never>] = [:]
    /// How each running operation stands.
    var progresses: [String: OperationProgress] = [:]
    /// Numbers chosen for phones being made and not stored yet (`createPhone`).
    var numbersBeingGiven: Set<String> = []
    /// The seeds' SDK app on each phone.
    public nonisolated let sdk: SDKApp
    /// privacyIDEA's authenticator app on each phone.
    public nonisolated let privacyIDEA: PrivacyIDEAApp
    /// The texts each phone's number receives.
    public nonisolated let messages: MessagesApp

    /// Phones that reach their backends through `network` (a test passes a double).
    public init(
        store: PhoneStore, configuration: Configuration, network: any BackendClient,
        privacyIDEAWire: WireHTTPClient = WireHTTPClient(http: WireHTTPClient.otherServers),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.configuration = configuration
        self.now = now
        device = Device(
            store: store, screen: events, network: network, allowedBackends: configuration.allowedBackends,
            pinPad: PinPad(policy: configuration.pinPolicy, derivation: configuration.pinDerivation, lane: configuration.pinLane),
            automation: Automation(), now: now, apps: InstalledApps())
        sdk = SDKApp(device: device, configuration: configuration)
        privacyIDEA = PrivacyIDEAApp(
            device: device,
            exchanges: PrivacyIDEAExchanges(
                wire: privacyIDEAWire, retry: configuration.deviceChangeRetry, sleep: configuration.sleep, random: configuration.random,
                retryObserver: configuration.retryObserver, keyLane: configuration.keyLane))
        messages = MessagesApp(device: device)
        device.apps.install(sdk)
        device.apps.install(privacyIDEA)
        device.apps.install(messages)
    }

    /// Phones that reach their backends over HTTP, through any fault set for them, and
    /// privacyIDEA servers through the wire for servers that are not AuthPhone's.
    public init(
        store: PhoneStore, configuration: Configuration, http: HTTPClient = WireHTTPClient.noRedirects,
        now: @escaping @Sendable () -> Date = Date.init, faults: FaultInjector? = nil
    ) {
        let wire = WireHTTPClient(
            http: http, timeout: configuration.requestTimeout, authorization: configuration.authorization, observe: configuration.observe)
        let network = HTTPBackendClient(
            wire: wire, faults: faults, timeout: .seconds(Int64(configuration.requestTimeout.nanoseconds / 1_000_000_000)),
            sleep: configuration.sleep)
        let privacyIDEAWire = WireHTTPClient(
            http: WireHTTPClient.otherServers, timeout: configuration.requestTimeout, authorization: configuration.authorization,
            observe: configuration.observe)
        self.init(store: store, configuration: configuration, network: network, privacyIDEAWire: privacyIDEAWire, now: now)
    }

    func phoneAndAccounts(_ id: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord]) {
        try await device.phoneAndAccounts(id)
    }
}
