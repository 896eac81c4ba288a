import ArgumentParser
import Backend
import Foundation
import Logging
import PushService
import SodiumKit
import WebApp

/// `authphone serve`. Every option may also come from `AUTHPHONE_NAME` or the `--config` file,
/// in the order flag > environment > file > default (`OptionSources`); so the options carry no
/// defaults of their own: `Settings` gives them once all sources are read.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the phones, the backend console and the API.",
        discussion: """
            Every option can also be set by the environment variable AUTHPHONE_ and its name in capitals \
            (--data-dir: AUTHPHONE_DATA_DIR) or by its camel-case key in --config FILE (JSON or YAML: \
            {"dataDir": "…", "port": 9000}); a flag wins over the variable, the variable over the file.
            """)

    @Option(help: "A JSON or YAML file of options by camel-case key (port, dataDir, pinKdf, …); also AUTHPHONE_CONFIG.")
    var config: String?
    @Option(help: "Address to listen on (default: \(defaults.host)). [AUTHPHONE_HOST]") var host: String?
    @Option(help: "Port to listen on, 0 for any free port (default: \(defaults.port)). [AUTHPHONE_PORT]") var port: Int?
    @Option(
        help:
            "The URL people and phones use to reach this server (QR codes, deep links and the accepted host names follow it). [AUTHPHONE_PUBLIC_URL]")
    var publicUrl: String?
    @Flag(
        help:
            "Serve HTTPS with a certificate from AuthPhone's own certificate authority, made in DATA_DIR/tls on first start; plain HTTP on the port is redirected. [AUTHPHONE_TLS]"
    )
    var tls = false
    @Option(help: "Serve HTTPS with this certificate (PEM, intermediates after it) instead; needs --tls-key. [AUTHPHONE_TLS_CERT]")
    var tlsCert: String?
    @Option(help: "The key of --tls-cert (PEM). [AUTHPHONE_TLS_KEY]") var tlsKey: String?
    @Option(help: "The access key every route needs off loopback (default: one made at start and printed). [AUTHPHONE_ACCESS_KEY]")
    var accessKey: String?
    @Option(help: "Bearer token the FCM endpoint requires of every send (default: none). [AUTHPHONE_PUSH_TOKEN]") var pushToken: String?
    @Option(
        help:
            "Seconds after which a connection that sends nothing (no request, or half of one) is closed (default: \(defaults.idleTimeout.components.seconds)). [AUTHPHONE_IDLE_TIMEOUT]"
    )
    var idleTimeout: Int?
    @Option(
        help:
            "Folder for the SQLite databases phones.sqlite, backend.sqlite, push.sqlite, timeline.sqlite (default: \(AppConfiguration.defaultDataDirectory)). [AUTHPHONE_DATA_DIR]"
    )
    var dataDir: String?
    @Flag(help: "Keep all data in memory; nothing survives a restart. [AUTHPHONE_IN_MEMORY]") var inMemory = false
    @Option(
        help:
            "A PostgreSQL to keep the phones, backend, push and timeline in instead of SQLite files, shared by every instance given the same URL: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]. [AUTHPHONE_DATABASE or AUTHPHONE_DATABASE_URL]"
    )
    var database: String?
    @Option(
        help:
            "With --database: connections each of the five stores keeps at most, 1 to 100 (default: \(defaults.postgresLimits.connections)). [AUTHPHONE_DATABASE_CONNECTIONS]"
    )
    var databaseConnections: Int?
    @Option(
        help:
            "With --database: where the other instances reach this one, http://HOST:PORT, to hand it the requests of the phones whose flows run here (default: the listen address). [AUTHPHONE_INSTANCE_URL]"
    )
    var instanceUrl: String?
    @Option(
        help:
            "With --database: seconds a request waits for a connection, and then for its answers, before a 503, 1 to 300 (default: \(defaults.postgresLimits.timeout.components.seconds)). [AUTHPHONE_DATABASE_TIMEOUT]"
    )
    var databaseTimeout: Int?
    @Option(
        help:
            "An `authphone export` file to start from when the data holds no phones and no backend accounts; its passphrase from --seed-passphrase-file or AUTHPHONE_EXPORT_PASSPHRASE. [AUTHPHONE_SEED]"
    )
    var seed: String?
    @Option(help: "A file whose first line is the seed's passphrase. [AUTHPHONE_SEED_PASSPHRASE_FILE]") var seedPassphraseFile: String?
    @Option(help: "Folder of the static files (default: Public/ beside the package). [AUTHPHONE_PUBLIC_DIR]") var publicDir: String?
    @Option(help: "Folder of the Mustache templates (default: Templates/ beside the package). [AUTHPHONE_TEMPLATES_DIR]") var templatesDir: String?
    @Option(help: "Base URL of the backend the phones use (default: this server). [AUTHPHONE_BACKEND_URL]") var backendUrl: String?
    @Option(help: "Base URL of the FCM v1 endpoint the backend pushes through (default: this server). [AUTHPHONE_PUSH_URL]") var pushUrl: String?
    @Option(help: "Pushes a minute one phone accepts before QUOTA_EXCEEDED (default: \(defaults.push.rateLimit)). [AUTHPHONE_PUSH_RATE_LIMIT]")
    var pushRateLimit: Int?
    @Option(help: "Messages the push log keeps, 1 to 100000; the oldest leave (default: \(defaults.push.logLimit)). [AUTHPHONE_PUSH_LOG_SIZE]")
    var pushLogSize: Int?
    @Option(help: "Texts a minute one number accepts before 429 TOO_MANY_TEXTS (default: \(defaults.sms.rateLimit)). [AUTHPHONE_SMS_RATE_LIMIT]")
    var smsRateLimit: Int?
    @Option(help: "Argon2id cost of the PIN key (default: interactive). [AUTHPHONE_PIN_KDF]") var pinKdf: PinKdf?
    @Option(
        help:
            "system (the wall clock), or manual: the time stands still until POST /api/clock moves it on, for tests that would wait (docs/recording.md); one instance only (default: system). [AUTHPHONE_CLOCK]"
    ) var clock: ClockMode?
    @Option(
        help:
            "Wrong-PIN policy of the Second Factor Server until the console changes it: nextAuth blocks at the 3rd; nevis waits 60 s after the 3rd, 180 s after the 4th and blocks at the 5th (default: nextAuth). [AUTHPHONE_PIN_POLICY]"
    )
    var pinPolicy: PinPolicyName?
    @Option(help: "Consecutive wrong PINs before the PIN is blocked (default: the policy's). [AUTHPHONE_MAX_PIN_ATTEMPTS]") var maxPinAttempts: Int?
    @Option(
        help:
            "Seconds a backend session (and its QR code) stays valid (default: \(Int(defaults.backend.sessionLifetime))). [AUTHPHONE_SESSION_LIFETIME]"
    ) var sessionLifetime: Int?
    @Option(help: "Consecutive wrong offline OTPs an account takes before its OTP is locked, 1 to 100 (default: 100). [AUTHPHONE_MAX_OTP_FAILURES]")
    var maxOtpFailures: Int?
    @Flag(help: "Record no timeline of the exchanges between the parts (recording costs CPU). [AUTHPHONE_NO_TIMELINE]") var noTimeline = false
    @Option(
        help:
            "Exchanges between the parts the timeline keeps per session, newest first, 1 to 10000 (default: \(defaults.timelinePerSession)). [AUTHPHONE_TIMELINE_PER_SESSION]"
    )
    var timelinePerSession: Int?
    @Option(
        help:
            "Exchanges between the parts the timeline keeps per phone, newest first, 1 to 100000 (default: \(defaults.timelinePerPhone)). [AUTHPHONE_TIMELINE_PER_PHONE]"
    )
    var timelinePerPhone: Int?
    @Option(help: "Log level (default: info). [AUTHPHONE_LOG_LEVEL]") var logLevel: LogLevel?
    @Option(help: "Log lines as text, or one JSON object a line (default: text). [AUTHPHONE_LOG_FORMAT]") var logFormat: LogFormat?

    /// What an option left out everywhere is: the app's own defaults, named once.
    static let defaults = AppConfiguration()

    enum PinKdf: String, ExpressibleByArgument, CaseIterable {
        case interactive, moderate, fast
    }
    enum ClockMode: String, ExpressibleByArgument, CaseIterable {
        case system, manual
    }
    enum PinPolicyName: String, ExpressibleByArgument, CaseIterable {
        case nextAuth, nevis
    }
    /// swift-log's levels, by their names.
    enum LogLevel: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }
    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func run() async throws {
        let sources = try await OptionSources(file: config ?? ProcessInfo.processInfo.environment["AUTHPHONE_CONFIG"])
        let settings = try await ServeSettings(self, sources)
        if settings.logFormat == .json {
            LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        }
        var logger = Logger(label: "authphone")
        logger.logLevel = settings.logLevel
        let app = try await buildApplication(settings.configuration, logger: logger)
        try await app.runService()
    }
}
