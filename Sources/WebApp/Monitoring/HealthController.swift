import Faults
import Foundation
import Hummingbird
import Storage

/// What an operator and an orchestrator ask of the process: `/health` (it answers), `/ready`
/// (its databases answer too; with the version and the uptime) and `/metrics` (Prometheus text).
/// All of them stand behind the doors like every other route.
struct HealthController {
    /// Each part's database, by the part's name.
    let databases: [(name: String, state: @Sendable () async -> DatabaseState)]
    let monitor: ServiceMonitor
    let faults: FaultInjector
    let startedAt: Date
    let now: @Sendable () -> Date

    struct Readiness: ResponseEncodable {
        let status: String
        let version: String
        let uptimeSeconds: Double
        let databases: [String: DatabaseState]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/health") { _, _ in "ok" }
        router.get("/ready") { _, _ -> EditedResponse<Readiness> in
            // every store at once: a server down answers within one store's limit, not four
            let states = await withTaskGroup(of: (String, DatabaseState).self) { group in
                for database in databases { group.addTask { (database.name, await database.state()) } }
                return await group.reduce(into: [String: DatabaseState]()) { $0[$1.0] = $1.1 }
            }
            let ready = states.values.allSatisfy { $0.status == .ok }
            return EditedResponse(
                status: ready ? .ok : .serviceUnavailable,
                response: Readiness(
                    status: ready ? "ready" : "unready", version: authPhoneVersion,
                    uptimeSeconds: max(0, now().timeIntervalSince(startedAt)), databases: states))
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: monitor.scrape(faults: faults))))
        }
    }
}

/// The version `/ready` and `authphone --version` report.
public let authPhoneVersion = "0.9.0"
