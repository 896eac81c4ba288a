import AuthFlow
import Backend
import Foundation
import Hummingbird
import Phone
import Scenarios
import Synchronization
import WireJSON

/// The walks recorded on this server (docs/recording.md): one at a time recording, the others
/// kept stopped, in this instance's memory. The routes a walk uses tell it what they did
/// (`noting`); while nothing records, that costs them one atomic load.
final class Recordings: Sendable {
    /// Recordings kept at most; the oldest stopped one goes to make room.
    static let kept = 50

    struct Recording: Sendable {
        let id: String
        let startedAt: Date
        var stoppedAt: Date?
        var walk: WalkRecorder
    }

    /// A recording as the list shows it.
    struct Summary: ResponseEncodable, Equatable {
        let id: String
        let name: String
        /// `recording` or `stopped`.
        let state: String
        let startedAt: Date
        let stoppedAt: Date?
        let steps: Int
        /// It stopped taking steps at `WalkRecorder.maximumSteps`.
        let full: Bool
        /// `manual` when its replay needs `serve --clock manual`.
        let clock: String
    }

    private let recordings = Mutex<[Recording]>([])
    private let isRecording = Atomic(false)
    /// Recordings started so far: an unnamed one is *Walk N*, N never given twice.
    private let started = Atomic(0)
    private let clock: Scenario.ClockMode
    private let serve: [String]
    private let shared: Bool
    private let backend: DemoBackend
    private let phones: PhoneService
    private let now: @Sendable () -> Date

    /// `shared`: the instance shares its database with others, each of which sees only part of a walk.
    /// `serve`: the arguments the server runs with that a walk's outcomes depend on.
    init(
        manualClock: Bool, serve: [String], shared: Bool, backend: DemoBackend, phones: PhoneService, now: @escaping @Sendable () -> Date
    ) {
        clock = manualClock ? .manual : .system
        self.serve = serve
        self.shared = shared
        self.backend = backend
        self.phones = phones
        self.now = now
    }

    /// Starts recording; the phones there already are its first steps, so that a replay makes them.
    func start(name: String?) async throws -> Summary {
        guard !shared else {
            throw APIError(
                .conflict, "RECORDING_UNAVAILABLE",
                "instances sharing a database each see part of a walk: record on one AuthPhone with its own data")
        }
        let name = try Self.checked(name)
        let existing = try await phones.phones()
        let number = started.add(1, ordering: .relaxed).newValue
        let summary = try recordings.withLock { recordings throws(APIError) -> Summary in
            guard !recordings.contains(where: { $0.stoppedAt == nil }) else {
                throw APIError(.conflict, "RECORDING_UNDER_WAY", "a walk is being recorded already: stop it first")
            }
            if recordings.count >= Self.kept, let oldest = recordings.firstIndex(where: { $0.stoppedAt != nil }) { recordings.remove(at: oldest) }
            var walk = WalkRecorder(name: name ?? "Walk \(number)", clock: clock, serve: serve)
            for phone in existing.sorted(by: { $0.createdAt < $1.createdAt }) {
                walk.record(.phoneCreated(id: phone.id, name: phone.name, pushToken: phone.fcmToken))
            }
            recordings.append(Recording(id: UUID().uuidString.lowercased(), startedAt: now(), walk: walk))
            return Self.summary(recordings[recordings.count - 1])
        }
        isRecording.store(true, ordering: .releasing)
        return summary
    }

    /// Stops it, once the outcomes of its sessions that have ended are in.
    func stop(id: String) async throws -> Summary {
        await noteEndedSessions()
        return try change(id) { recording in
            guard recording.stoppedAt == nil else { return }
            recording.stoppedAt = now()
            isRecording.store(false, ordering: .releasing)
        }
    }

    func rename(id: String, to name: String) throws -> Summary {
        let name = try Self.checked(name) ?? ""
        return try change(id) { $0.walk.rename(name) }
    }

    func delete(id: String) throws {
        try recordings.withLock { recordings throws(APIError) in
            guard let index = recordings.firstIndex(where: { $0.id == id }) else { throw Self.notFound(id) }
            if recordings[index].stoppedAt == nil { isRecording.store(false, ordering: .releasing) }
            recordings.remove(at: index)
        }
    }

    func list() -> [Summary] { recordings.withLock { $0.map(Self.summary) } }

    func scenario(id: String) throws -> Scenario {
        try recordings.withLock { recordings throws(APIError) in
            guard let recording = recordings.first(where: { $0.id == id }) else { throw Self.notFound(id) }
            return recording.walk.scenario
        }
    }

    /// `work`, and while a walk is recorded what came of it: `event` is told its value, or its
    /// refusal's code.
    func noting<T: Sendable>(_ work: () async throws -> T, as event: (T?, String?) async -> WalkEvent?) async throws -> T {
        guard isRecording.load(ordering: .acquiring) else { return try await work() }
        let value: T
        do { value = try await work() } catch {
            if let seen = await event(nil, (APIError.from(error) as? APIError)?.code ?? "INTERNAL_ERROR") { await note(seen) }
            throw error
        }
        if let seen = await event(value, nil) { await note(seen) }
        return value
    }

    /// A push sent from a page, its message as it came: open (`OpenJSON`), since it is whatever
    /// FCM message the sender composed, and the replay sends it again as it was.
    func note(pushOf body: [UInt8], refusal: String?) async {
        guard case .object(let message)? = (try? WireJSON.decoder().decode([String: OpenJSON].self, from: Data(body)))?["message"] else { return }
        await note(.pushSent(message: message, refusal: refusal))
    }

    /// The phone's flow as a walk counts on it, when one is recorded.
    func flowSeen(phoneId: String) async -> FlowSeen? {
        Self.seen(await phones.sdk.currentFlow(phoneId: phoneId))
    }

    /// `flow` as a walk counts on it: read back from the JSON the API writes, so that a
    /// recording and its replay see the same fields.
    static func seen(_ flow: Flow?) -> FlowSeen? {
        guard let flow, let data = try? WireJSON.data(flow) else { return nil }
        return (try? WireJSON.decoder().decode(FlowSeen.Wire.self, from: data)).map(FlowSeen.init)
    }

    /// A request's fields as a scenario keeps them, as they would be sent again: open (`OpenJSON`),
    /// since each route's own type says what they are and the scenario only carries them.
    static func fields(of request: some Encodable) -> [String: OpenJSON] {
        (try? WireJSON.data(request)).flatMap { try? WireJSON.decoder().decode([String: OpenJSON].self, from: $0) } ?? [:]
    }

    /// Whether a walk is being recorded: a route that would read something only for it asks first.
    var isOn: Bool { isRecording.load(ordering: .acquiring) }

    private func note(_ event: WalkEvent) async {
        recordings.withLock { recordings in
            guard let index = recordings.firstIndex(where: { $0.stoppedAt == nil }) else { return }
            recordings[index].walk.record(event)
        }
        await noteEndedSessions()
    }

    /// The outcome of each session the walk started that has ended since: a session ends by
    /// a phone's answer, and also by its expiry, which nobody is told of (a moved clock).
    private func noteEndedSessions() async {
        let open = recordings.withLock { $0.first { $0.stoppedAt == nil }?.walk.openSessions ?? [] }
        for id in open {
            guard let session = try? await backend.session(id: id), session.status.isFinal else { continue }
            recordings.withLock { recordings in
                guard let index = recordings.firstIndex(where: { $0.stoppedAt == nil }) else { return }
                recordings[index].walk.record(.sessionEnded(id: id, outcome: session.status.rawValue))
            }
        }
    }

    private func change(_ id: String, _ body: (inout Recording) -> Void) throws -> Summary {
        try recordings.withLock { recordings throws(APIError) in
            guard let index = recordings.firstIndex(where: { $0.id == id }) else { throw Self.notFound(id) }
            body(&recordings[index])
            return Self.summary(recordings[index])
        }
    }

    private static func summary(_ recording: Recording) -> Summary {
        Summary(
            id: recording.id, name: recording.walk.scenario.name, state: recording.stoppedAt == nil ? "recording" : "stopped",
            startedAt: recording.startedAt, stoppedAt: recording.stoppedAt, steps: recording.walk.scenario.steps.count,
            full: recording.walk.isFull, clock: recording.walk.scenario.clock.rawValue)
    }

    /// A name is 1 to 100 characters, none of them a control character.
    private static func checked(_ name: String?) throws(APIError) -> String? {
        guard let name else { return nil }
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.badRequest, "INVALID_FIELD", "the field 'name' must be 1 to 100 characters, none of them a control character")
        }
        return trimmed
    }

    private static func notFound(_ id: String) -> APIError {
        APIError(.notFound, "RECORDING_NOT_FOUND", "no recording has the id '\(id)'")
    }
}
