import Backend
import BlockingWork
import Foundation
import PushService
import SMSGateway
import SodiumKit
import StateExport
import Storage

/// Everything `authphone serve` can be told, with the defaults a user gets from `make run`.
public struct AppConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The URL people and phones use to reach this server (QR codes, deep links, the phones'
    /// allow-list and the host names answered follow it); nil: `http://host:port`.
    public var publicURL: String?
    /// Required on every route when set. Listening off loopback without one, the server makes
    /// one at start and prints it; on loopback none is needed.
    public var accessKey: String?
    /// HTTPS on the listen port (plain HTTP there is redirected to it); nil: plain HTTP.
    public var tls: TLSSource?
    /// A connection that sends nothing for this long (no request, or half of one) is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// When set, the FCM endpoint takes only sends with `Authorization: Bearer TOKEN`, as FCM
    /// takes only OAuth tokens; the demo backend sends it too.
    public var pushToken: String?
    /// Folder for `phones.sqlite`, `backend.sqlite`, `push.sqlite`, `sms.sqlite` and `timeline.sqlite`; nil keeps everything in memory (tests).
    public var dataDirectory: String? = defaultDataDirectory
    public static let defaultDataDirectory = "authphone-data"
    /// A PostgreSQL that holds the stores instead of the data folder's SQLite files: every
    /// instance started with the same one shares them.
    public var postgres: PostgresLocation?
    /// Where the other instances on that PostgreSQL reach this one, to hand it the requests of
    /// the phones whose flows run here; nil: its listen address (instances on one machine).
    public var instanceURL: String?
    /// Each store's share of that PostgreSQL, and how long a request waits on it.
    public var postgresLimits = PostgresDatabase.Limits()
    public var publicDirectory: String
    public var templatesDirectory: String
    /// The backend the phones use; nil: this server's own backend.
    public var backendURL: String?
    /// Argon2id cost of the PIN key derivation (`interactive`, `moderate` or `fast`).
    public var pinDerivation = PinKeyDerivation.Profile.interactive
    public var backend = DemoBackend.Configuration()
    public var push = PushService.Configuration()
    public var sms = SMSGateway.Configuration()
    /// Whether the exchanges between the parts are recorded at all (off: the timeline stays empty).
    public var recordTimeline = true
    /// The exchanges between the parts the timeline keeps per session and per phone (the newest).
    public var timelinePerSession = 200
    public var timelinePerPhone = 500
    /// Phones and backend accounts to start from when the stores hold none (`serve --seed FILE`,
    /// opened before the app is built so a wrong passphrase stops the start).
    public var seed: ExportedState?
    /// Wall-clock time, replaceable in tests.
    public var now: @Sendable () -> Date = Date.init
    /// A test's clock (`serve --clock manual`): what `now` reads and `sleep` waits on, moved on
    /// by `POST /api/clock`; nil: the wall clock.
    public private(set) var manualClock: ManualClock?

    public mutating func useManualClock(_ clock: ManualClock) {
        manualClock = clock
        now = clock.now
        sleep = clock.sleep(for:)
    }
    /// Waiting (retries, simulated time-outs, delayed pushes) and its jitter, replaceable in tests
    /// so that a whole retry schedule runs without sleeping.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// How long an uploaded QR picture may take to decode and scan before its request answers
    /// SCAN_TIMED_OUT; tests shorten it to see that answer.
    public var pictureScanTimeLimit: Duration = .seconds(5)
    /// The work that holds a thread for long, on threads of its own (`BlockingWork`): uploaded
    /// pictures read at once, and PINs derived at once, running and waiting; past them a request
    /// is answered 503 with `Retry-After` at once. Each lane has a thread a core.
    public var pictureScanCapacity = 8
    public var pinDerivationCapacity = 128
    /// The events `/api/events` keeps for streams that resume (`Last-Event-ID`), the most recent,
    /// and how many streams may be open at once.
    public var eventHistory = 1024
    public var eventStreams = 64
    /// Waits out the time between an idle event stream's `: keep-alive` comments; a test passes
    /// one it controls, so that none waits.
    public var eventKeepAlive: @Sendable () async throws -> Void = { try await Task.sleep(for: .seconds(15)) }
    /// The pictures' lane; nil: one of the server's own. A test passes one it can hold.
    public var pictureLane: WorkLane?

    /// `Public/` and `Templates/` beside the executable (an unpacked release, `make dist`), else
    /// next to the package, found from this file rather than the working directory so that tests
    /// and `swift run` from anywhere see the same files.
    public init(packageRoot: String = AppConfiguration.resourceRoot) {
        publicDirectory = packageRoot + "/Public"
        templatesDirectory = packageRoot + "/Templates"
    }

    public static let resourceRoot: String = {
        guard let executable = Bundle.main.executablePath else { return packageRoot }
        let folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
        let bundled = ["Public", "Templates"].allSatisfy { FileManager.default.fileExists(atPath: folder + "/" + $0) }
        return bundled ? folder : packageRoot
    }()

    public static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
