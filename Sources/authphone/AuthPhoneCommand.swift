import ArgumentParser
import Backend
import BackendAPI
import Foundation
import Logging
import PushService
import SodiumKit
import WebApp

@main
struct AuthPhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authphone",
        abstract: "A simulated mobile authenticator with its demo backend, in one server.",
        subcommands: [Serve.self, Push.self, Load.self],
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the phones, the backend console and the API.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0: any free port).") var port = 8080
    @Option(help: "The URL people and phones use to reach this server (QR codes, deep links and the accepted host names follow it).")
    var publicURL: String?
    @Option(help: "The access key every route needs off loopback (or AUTHPHONE_ACCESS_KEY; default: one made at start and printed).")
    var accessKey: String?
    @Option(help: "Bearer token the FCM endpoint requires of every send (or AUTHPHONE_PUSH_TOKEN; default: none).")
    var pushToken: String?
    @Option(help: "Seconds after which a connection that sends nothing (no request, or half of one) is closed.")
    var idleTimeout = 30
    @Option(help: "Folder for the SQLite databases (phones.sqlite, backend.sqlite, push.sqlite, timeline.sqlite).")
    var dataDir = "authphone-data"
    @Flag(help: "Keep all data in memory; nothing survives a restart.") var inMemory = false
    @Option(help: "Folder of the static files.") var publicDir: String?
    @Option(help: "Folder of the Mustache templates.") var templatesDir: String?
    @Option(help: "Base URL of the backend the phones use (default: this server).") var backendURL: String?
    @Option(help: "Base URL of the FCM v1 endpoint the backend pushes through (default: this server).") var pushURL: String?
    @Option(help: "Pushes a minute one phone accepts before QUOTA_EXCEEDED.") var pushRateLimit = 30
    @Option(help: "Messages the push log keeps (the oldest leave; 1 to 100000).") var pushLogSize = 1000
    @Option(help: "Argon2id cost of the PIN key: interactive, moderate or fast.") var pinKdf = "interactive"
    @Option(
        help:
            "Wrong-PIN policy of the Second Factor Server until the console changes it: nextAuth (block at the 3rd) or nevis (60 s after the 3rd, 180 s after the 4th, block at the 5th)."
    )
    var pinPolicy = "nextAuth"
    @Option(help: "Consecutive wrong PINs before the PIN is blocked (default: the policy's).") var maxPinAttempts: Int?
    @Option(help: "Seconds a backend session (and its QR code) stays valid.") var sessionLifetime = 300
    @Option(help: "Consecutive wrong offline OTPs an account takes before its OTP is locked (1 to 100).") var maxOtpFailures = 100
    @Flag(help: "Record no timeline of the exchanges between the parts (for load tests: recording costs CPU).") var noTimeline = false
    @Option(help: "Exchanges between the parts the timeline keeps per session, newest first (1 to 10000).") var timelinePerSession = 200
    @Option(help: "Exchanges between the parts the timeline keeps per phone, newest first (1 to 100000).") var timelinePerPhone = 500
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard PinKeyDerivation.Profile.named[pinKdf] != nil else {
            throw ValidationError("--pin-kdf must be one of \(PinKeyDerivation.Profile.named.keys.sorted().joined(separator: ", "))")
        }
        if let publicURL {
            guard let url = WireHTTPClient.sendableURL(publicURL), url.query == nil, url.path.isEmpty || url.path == "/"
            else {
                throw ValidationError("--public-url must be an http(s) URL with no path, such as http://authphone.example:8080")
            }
        }
        for (name, secret) in [("--access-key", environment.accessKey), ("--push-token", environment.pushToken)] {
            if let secret,
                !(16...256).contains(secret.count) || !secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) })
            {
                throw ValidationError("\(name) must be 16 to 256 letters, digits or -_.~")
            }
        }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be between 1 and 3600 seconds") }
        guard (1...10_000).contains(pushRateLimit) else { throw ValidationError("--push-rate-limit must be between 1 and 10000") }
        guard (1...100_000).contains(pushLogSize) else { throw ValidationError("--push-log-size must be between 1 and 100000") }
        for (name, url) in [("--backend-url", backendURL), ("--push-url", pushURL)] {
            if let url, WireHTTPClient.sendableURL(url) == nil {
                throw ValidationError("\(name) must be an absolute http(s) URL with a port from 1 to 65535")
            }
        }
        guard SecondFactorPolicy.presets[pinPolicy] != nil else {
            throw ValidationError("--pin-policy must be one of \(SecondFactorPolicy.presets.keys.sorted().joined(separator: ", "))")
        }
        do { _ = try secondFactorPolicy.validated() } catch { throw ValidationError("--max-pin-attempts: \(error.message)") }
        guard (10...86_400).contains(sessionLifetime) else { throw ValidationError("--session-lifetime must be between 10 and 86400 seconds") }
        guard OTPFailureLimit.allowed.contains(maxOtpFailures) else {
            throw ValidationError("--max-otp-failures must be between 1 and \(OTPFailureLimit.maximum)")
        }
        guard (1...10_000).contains(timelinePerSession) else { throw ValidationError("--timeline-per-session must be between 1 and 10000") }
        guard (1...100_000).contains(timelinePerPhone) else { throw ValidationError("--timeline-per-phone must be between 1 and 100000") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level is not a log level") }
    }

    /// Secrets may come from the environment, so that they stay out of the process list.
    var environment: (accessKey: String?, pushToken: String?) {
        let variables = ProcessInfo.processInfo.environment
        return (accessKey ?? variables["AUTHPHONE_ACCESS_KEY"], pushToken ?? variables["AUTHPHONE_PUSH_TOKEN"])
    }

    /// The preset, with its attempts overridden (and waits past the new block dropped).
    var secondFactorPolicy: SecondFactorPolicy {
        var policy = SecondFactorPolicy.presets[pinPolicy] ?? .nextAuth
        if let maxPinAttempts {
            policy.maxAttempts = maxPinAttempts
            policy.penalties = Array(policy.penalties.prefix(max(maxPinAttempts - 1, 0)))
        }
        return policy
    }

    func run() async throws {
        var configuration = AppConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.publicURL = publicURL
        (configuration.accessKey, configuration.pushToken) = environment
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.dataDirectory = inMemory ? nil : dataDir
        if let publicDir { configuration.publicDirectory = publicDir }
        if let templatesDir { configuration.templatesDirectory = templatesDir }
        configuration.backendURL = backendURL
        configuration.pinDerivation = PinKeyDerivation.Profile.named[pinKdf] ?? .interactive
        configuration.backend = DemoBackend.Configuration(
            sessionLifetime: TimeInterval(sessionLifetime),
            secondFactorPolicy: secondFactorPolicy,
            pushURL: pushURL,
            maxOTPFailures: maxOtpFailures)
        configuration.push = PushService.Configuration(rateLimit: pushRateLimit, logLimit: pushLogSize)
        configuration.recordTimeline = !noTimeline
        configuration.timelinePerSession = timelinePerSession
        configuration.timelinePerPhone = timelinePerPhone
        var logger = Logger(label: "authphone")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let app = try await buildApplication(configuration, logger: logger)
        try await app.runService()
    }
}
