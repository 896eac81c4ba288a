import ArgumentParser
import Backend
import BackendAPI
import Foundation
import Logging
import PushService
import SodiumKit
import StateExport
import Storage
import WebApp

/// `serve`'s options with every source read (flag, then `AUTHPHONE_NAME`, then the config
/// file, then the default given here, once) and checked: a bad value from any source stops the
/// start with a message that names the option.
struct ServeSettings {
    var configuration = AppConfiguration()
    var logLevel: Logger.Level
    var logFormat: Serve.LogFormat

    init(_ flags: Serve, _ sources: OptionSources) async throws {
        let port = try await sources.int("port", flags.port) ?? configuration.port
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        configuration.host = try await sources.string("host", flags.host) ?? configuration.host
        configuration.port = port

        let publicURL = try await sources.string("publicUrl", flags.publicUrl)
        if let publicURL {
            guard let url = WireHTTPClient.sendableURL(publicURL), url.query == nil, url.path.isEmpty || url.path == "/" else {
                throw ValidationError("--public-url must be an http(s) URL with no path, such as http://authphone.example:8080")
            }
        }
        configuration.publicURL = publicURL
        configuration.tls = try await Self.tls(flags, sources)
        if configuration.tls != nil, let publicURL, !publicURL.lowercased().hasPrefix("https://") {
            throw ValidationError("--public-url must be an https URL when the server speaks HTTPS (--tls)")
        }
        configuration.accessKey = try await Self.secret("--access-key", sources.string("accessKey", flags.accessKey))
        configuration.pushToken = try await Self.secret("--push-token", sources.string("pushToken", flags.pushToken))

        let idleTimeout = try await sources.int("idleTimeout", flags.idleTimeout) ?? Int(configuration.idleTimeout.components.seconds)
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be between 1 and 3600 seconds") }
        configuration.idleTimeout = .seconds(idleTimeout)

        let inMemory = try await sources.bool("inMemory", flags.inMemory ? true : nil) ?? false
        let dataDir = try await sources.string("dataDir", flags.dataDir) ?? AppConfiguration.defaultDataDirectory
        configuration.dataDirectory = inMemory ? nil : dataDir
        // AUTHPHONE_DATABASE_URL too: the name such a URL often goes by
        let databaseURL = try await sources.string("databaseUrl", nil)
        if let database = try await sources.string("database", flags.database) ?? databaseURL {
            guard !inMemory else { throw ValidationError("--database and --in-memory exclude each other: the data is kept in one place") }
            do { configuration.postgres = try PostgresLocation(url: database) } catch { throw ValidationError("--database: \(error)") }
        }
        if let instanceURL = try await sources.string("instanceUrl", flags.instanceUrl) {
            guard configuration.postgres != nil else { throw ValidationError("--instance-url is for instances that share a --database") }
            guard WireHTTPClient.sendableURL(instanceURL) != nil, instanceURL.lowercased().hasPrefix("http://") else {
                throw ValidationError("--instance-url must be an absolute http URL with a port from 1 to 65535")
            }
            configuration.instanceURL = instanceURL
        }
        let connections = try await sources.int("databaseConnections", flags.databaseConnections) ?? configuration.postgresLimits.connections
        guard (1...100).contains(connections) else { throw ValidationError("--database-connections must be between 1 and 100") }
        let timeout =
            try await sources.int("databaseTimeout", flags.databaseTimeout)
            ?? Int(configuration.postgresLimits.timeout.components.seconds)
        guard (1...300).contains(timeout) else { throw ValidationError("--database-timeout must be between 1 and 300 seconds") }
        configuration.postgresLimits = .init(connections: connections, timeout: .seconds(timeout))
        if let seed = try await sources.string("seed", flags.seed) {
            let passphraseFile = try await sources.string("seedPassphraseFile", flags.seedPassphraseFile)
            do { configuration.seed = try StateCommand.open(seed, passphrase: Passphrase.read(file: passphraseFile)) } catch {
                throw ValidationError("--seed: \(error)")
            }
        }
        if let directory = try await sources.string("publicDir", flags.publicDir) { configuration.publicDirectory = directory }
        if let directory = try await sources.string("templatesDir", flags.templatesDir) { configuration.templatesDirectory = directory }

        let backendURL = try await sources.string("backendUrl", flags.backendUrl)
        let pushURL = try await sources.string("pushUrl", flags.pushUrl)
        for (name, url) in [("--backend-url", backendURL), ("--push-url", pushURL)] {
            if let url, WireHTTPClient.sendableURL(url) == nil {
                throw ValidationError("\(name) must be an absolute http(s) URL with a port from 1 to 65535")
            }
        }
        configuration.backendURL = backendURL

        let pushRateLimit = try await sources.int("pushRateLimit", flags.pushRateLimit) ?? configuration.push.rateLimit
        guard (1...10_000).contains(pushRateLimit) else { throw ValidationError("--push-rate-limit must be between 1 and 10000") }
        let pushLogSize = try await sources.int("pushLogSize", flags.pushLogSize) ?? configuration.push.logLimit
        guard (1...100_000).contains(pushLogSize) else { throw ValidationError("--push-log-size must be between 1 and 100000") }
        configuration.push = PushService.Configuration(rateLimit: pushRateLimit, logLimit: pushLogSize)
        let smsRateLimit = try await sources.int("smsRateLimit", flags.smsRateLimit) ?? configuration.sms.rateLimit
        guard (1...10_000).contains(smsRateLimit) else { throw ValidationError("--sms-rate-limit must be between 1 and 10000") }
        configuration.sms.rateLimit = smsRateLimit

        configuration.recordTimeline = !(try await sources.bool("noTimeline", flags.noTimeline ? true : nil) ?? false)
        let perSession = try await sources.int("timelinePerSession", flags.timelinePerSession) ?? configuration.timelinePerSession
        guard (1...10_000).contains(perSession) else { throw ValidationError("--timeline-per-session must be between 1 and 10000") }
        let perPhone = try await sources.int("timelinePerPhone", flags.timelinePerPhone) ?? configuration.timelinePerPhone
        guard (1...100_000).contains(perPhone) else { throw ValidationError("--timeline-per-phone must be between 1 and 100000") }
        (configuration.timelinePerSession, configuration.timelinePerPhone) = (perSession, perPhone)

        if try await sources.choice("clock", flags.clock) == Serve.ClockMode.manual {
            guard configuration.postgres == nil else {
                throw ValidationError("--clock manual is for one instance: instances sharing a --database would each keep a time of their own")
            }
            // on a whole second, so that a replay's times fall where the recording's did
            configuration.useManualClock(ManualClock(start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))))
        }
        let pinKdf: Serve.PinKdf = try await sources.choice("pinKdf", flags.pinKdf) ?? .interactive
        configuration.pinDerivation = PinKeyDerivation.Profile.named[pinKdf.rawValue] ?? .interactive

        let sessionLifetime = try await sources.int("sessionLifetime", flags.sessionLifetime) ?? Int(configuration.backend.sessionLifetime)
        guard (10...86_400).contains(sessionLifetime) else {
            throw ValidationError("--session-lifetime must be between 10 and 86400 seconds")
        }
        let maxOtpFailures = try await sources.int("maxOtpFailures", flags.maxOtpFailures) ?? OTPFailureLimit.maximum
        guard OTPFailureLimit.allowed.contains(maxOtpFailures) else {
            throw ValidationError("--max-otp-failures must be between 1 and \(OTPFailureLimit.maximum)")
        }
        configuration.backend = DemoBackend.Configuration(
            sessionLifetime: TimeInterval(sessionLifetime),
            secondFactorPolicy: try await Self.policy(
                sources.choice("pinPolicy", flags.pinPolicy) ?? .nextAuth,
                maxAttempts: sources.int("maxPinAttempts", flags.maxPinAttempts)),
            pushURL: pushURL, maxOTPFailures: maxOtpFailures)

        let level: Serve.LogLevel = try await sources.choice("logLevel", flags.logLevel) ?? .info
        logLevel = Logger.Level(rawValue: level.rawValue) ?? .info
        logFormat = try await sources.choice("logFormat", flags.logFormat) ?? .text
    }

    /// `--tls` alone: AuthPhone's own certificate authority; `--tls-cert` with `--tls-key`: the user's.
    private static func tls(_ flags: Serve, _ sources: OptionSources) async throws -> TLSSource? {
        let certificate = try await sources.string("tlsCert", flags.tlsCert)
        let key = try await sources.string("tlsKey", flags.tlsKey)
        switch (certificate, key) {
        case (let certificate?, let key?): return .files(certificate: certificate, key: key)
        case (nil, nil): return try await sources.bool("tls", flags.tls ? true : nil) == true ? .localAuthority : nil
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
    }

    /// Secrets may come from the environment or a file, so that they stay out of the process list.
    private static func secret(_ name: String, _ value: String?) throws -> String? {
        if let value, !(16...256).contains(value.count) || !value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) }) {
            throw ValidationError("\(name) must be 16 to 256 letters, digits or -_.~")
        }
        return value
    }

    /// The preset, with its attempts overridden (and waits past the new block dropped).
    private static func policy(_ name: Serve.PinPolicyName, maxAttempts: Int?) throws -> SecondFactorPolicy {
        var policy = SecondFactorPolicy.presets[name.rawValue] ?? .nextAuth
        if let maxAttempts {
            policy.maxAttempts = maxAttempts
            policy.penalties = Array(policy.penalties.prefix(max(maxAttempts - 1, 0)))
        }
        do { return try policy.validated() } catch { throw ValidationError("--max-pin-attempts: \(error.message)") }
    }
}
