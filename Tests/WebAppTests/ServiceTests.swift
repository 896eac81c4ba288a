import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Logging
import OutOfBand
import Synchronization
import TestDoubles
import Testing
import WebApp

/// Running as a service: `/ready` and `/metrics` (docs/architecture.md, "Service"), and the
/// info-level log of sessions, flows, pushes and faults.
@Suite(.timeLimit(.minutes(2))) struct ServiceTests {
    struct Readiness: Decodable {
        struct Database: Decodable, Equatable {
            let status: String
            let storage: String
        }
        let status: String
        let version: String
        let uptimeSeconds: Double
        let databases: [String: Database]
    }

    @Test func readyNamesTheVersionTheDatabasesAndTheUptimeOnTheServersClock() async throws {
        let clock = TestClock()
        var configuration = testConfiguration()
        configuration.now = { clock.now() }
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let first = try await client.send(.get, "/ready")
            #expect(first.status == .ok)
            let ready = try first.decode(Readiness.self)
            #expect(ready.status == "ready")
            #expect(ready.version == authPhoneVersion)
            #expect(ready.uptimeSeconds == 0)
            let memory = Readiness.Database(status: "ok", storage: "memory")
            #expect(ready.databases == ["phones": memory, "backend": memory, "push": memory, "timeline": memory, "sms": memory])
            clock.advance(90)
            #expect(try await client.send(.get, "/ready").decode(Readiness.self).uptimeSeconds == 90)
        }
    }

    @Test func readyReadsDatabaseFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try await buildApplication(testConfiguration(dataDirectory: directory))
        try await app.test(.router) { client in
            let ready = try await client.send(.get, "/ready").decode(Readiness.self)
            #expect(Set(ready.databases.values.map(\.storage)) == ["file"])
        }
    }

    /// The series of an enrolment, read back in the Prometheus text (the API test parses it with
    /// prometheus_client and follows a login).
    @Test func metricsCountAnEnrolmentItsSessionAndItsSocket() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let text = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
            for line in [
                #"authphone_flows_started_total{type="ENROL"} 1"#,
                #"authphone_flows_ended_total{type="ENROL",outcome="DONE"} 1"#,
                #"authphone_flow_duration_seconds_count{type="ENROL"} 1"#,
                #"authphone_sessions_total{type="enrol",state="pending"} 1"#,
                #"authphone_sessions_total{type="enrol",state="enrolled"} 1"#,
                #"authphone_websockets_open{stream="phone"} 1.0"#,
                #"authphone_http_requests_total{method="POST",route="/api/phones/{id}/oob",status="202"} 1"#,
            ] {
                #expect(text.contains(line + "\n"), "\(line) is not in\n\(text)")
            }
            #expect(!text.contains(phoneId))
            #expect(text.contains("process_resident_memory_bytes "))
            #expect(text.contains("process_cpu_seconds_total "))
        }
    }

    /// A flow stopped by deleting its phone, or by a reset, publishes no final update: it ends
    /// with that outcome and is no longer counted as under way.
    @Test func flowsStoppedByADeleteOrAResetAreNoLongerUnderway() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            for (stop, outcome) in [("delete", "PHONE_DELETED"), ("reset", "RESET")] {
                let phone = try await client.createPhone()
                try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                    var screen = Screen(inbound, outbound)
                    _ = try await screen.next()
                    let enrol = try await client.startSession("enrol", user: "bob")
                    _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrol.qrText])
                    #expect(try await screen.settledFlow().currentInteraction?.type == .confirm)
                }
                var text = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
                #expect(text.contains(#"authphone_flows_underway{type="ENROL"} 1.0"# + "\n"), "\(text)")
                if stop == "delete" {
                    #expect(try await client.send(.delete, "/api/phones/\(phone.id)", headers: [:]).status == .noContent)
                } else {
                    #expect(try await client.send(.post, "/api/reset", headers: [.contentType: "application/json"]).status == .noContent)
                }
                text = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
                #expect(text.contains(#"authphone_flows_underway{type="ENROL"} 0.0"# + "\n"), "\(stop): \(text)")
                #expect(text.contains(#"authphone_flows_ended_total{type="ENROL",outcome="\#(outcome)"} 1"# + "\n"), "\(stop): \(text)")
            }
        }
    }

    /// A push the push service refuses once with 503 goes through on the backend's retry, counted.
    @Test func retriesAreCountedByOperation() async throws {
        try await withEnrolledPhone { client, screen, _, sleeper in
            _ = try await client.send(.post, "/api/faults", json: ["target": "push", "kind": "status", "status": 503, "count": 1])
            _ = try await client.send(.post, "/api/backend/sessions", json: ["type": "login", "userId": "alice", "delivery": "push"])
            while try await screen.next().notification == nil {}
            #expect(!sleeper.recorded.isEmpty)
            let text = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
            #expect(text.contains(#"authphone_retries_total{operation="push"} 1"# + "\n"), "\(text)")
            #expect(text.contains(#"authphone_faults_applied_total{target="push",kind="status"} 1"# + "\n"))
        }
    }

    /// At info: each session's and flow's start and end, with their outcome and duration.
    @Test func infoLogsTellSessionsAndFlowsFromStartToEnd() async throws {
        let logs = LogCapture()
        try await withEnrolledPhone(logger: logs.logger(level: .info)) { _, _, _ in }
        let lines = logs.all
        for (message, fields) in [
            ("session started", ["type=enrol", "user=alice"]),
            ("session ended", ["outcome=enrolled", "durationMs="]),
            ("flow started", ["type=ENROL", "phone="]),
            ("flow ended", ["type=ENROL", "outcome=DONE", "durationMs="]),
        ] {
            #expect(
                lines.contains { line in line.hasPrefix("info \(message) ") && fields.allSatisfy { line.contains($0) } },
                "no '\(message)' with \(fields) in \(lines)")
        }
    }

    /// What `--log-format json` writes, kept line by line.
    final class JSONLines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }

        func logger(level: Logger.Level = .trace) -> Logger {
            var logger = Logger(label: "authphone") { label in JSONLogHandler(label: label) { line in self.lines.withLock { $0.append(line) } } }
            logger.logLevel = level
            return logger
        }
    }

    /// Every line is one JSON object with the time, level, logger and message; at trace level,
    /// through an enrolment, a login, a push and a fault, no line holds the PIN, the session's
    /// token or the phone's FCM token.
    @Test func jsonLogLinesParseAndHoldNoSecret() async throws {
        let logs = JSONLines()
        let pin = "260418"
        let app = try await buildApplication(testConfiguration(), logger: logs.logger())
        let secrets = try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let enrolment = try await client.startSession("enrol", user: "alice")
            _ = try await client.send(.post, "/api/faults", json: ["target": "push", "kind": "dropPush", "count": 1])
            _ = try await client.send(
                .post, "/v1/projects/authphone/messages:send", json: ["message": ["token": phone.fcmToken, "data": ["k": "v"]]])
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrolment.qrText])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "confirmSession"])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "inputSecondFactor", "pin": pin])
                #expect(try await screen.settledFlow().state == .done)
            }
            return [pin, phone.fcmToken, try OutOfBandDecoder.decode(qrText: enrolment.qrText).redeemData.token]
        }
        let objects = try logs.all.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" })
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.allSatisfy { ["time", "level", "logger", "message"].allSatisfy($0.keys.contains) })
        let messages = objects.compactMap { $0["message"] as? String }
        for message in ["session started", "session ended", "flow started", "flow ended", "push", "fault applied", "request"] {
            #expect(messages.contains(message), "no '\(message)' line")
        }
        #expect(objects.contains { $0["message"] as? String == "push" && $0["outcome"] as? String == "dropped" })
        for line in logs.all {
            for secret in secrets { #expect(!line.contains(secret), "a secret is in \(line)") }
        }
    }

    /// The key a link carries (`/?key=…`) stays out of the request log.
    @Test func theAccessKeyOfALinkIsNotLogged() async throws {
        let logs = JSONLines()
        let key = "a-test-access-key-0123456789"
        var configuration = testConfiguration()
        configuration.accessKey = key
        let app = try await buildApplication(configuration, logger: logs.logger())
        try await app.test(.router) { client in
            let answer = try await client.send(.get, "/?key=\(key)")
            #expect(answer.status == .seeOther)
        }
        #expect(logs.all.contains { $0.contains(#""path":"/""#) })
        #expect(logs.all.allSatisfy { !$0.contains(key) })
    }

    /// Every client of AuthPhone's servers here (the phones', the backend's, the instances', the
    /// load generator's) ends an idle connection before a server with the default idle timeout
    /// does: a request sent on a connection the server is closing is reset, and a POST is not
    /// sent again.
    @Test func clientsLetAnIdleConnectionGoBeforeTheServerClosesIt() {
        let server = AppConfiguration().idleTimeout
        #expect(WireHTTPClient.idleTimeout.nanoseconds < server.components.seconds * 1_000_000_000)
    }
}
