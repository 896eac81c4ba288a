import BackendAPI
import Foundation
import OutOfBand
import Retry

/// How the backend pushes a session to its phones: through the FCM v1 API, retrying what FCM
/// says may succeed later. The console's request waits for a few seconds of retries at most: a
/// longer wait (a throttled phone's `Retry-After`) goes on after the answer, and the session
/// says when the push goes again.
extension DemoBackend {
    /// A send the request could not wait for, and how long it waits before it goes again.
    public struct DeferredPush: Sendable {
        let sessionId: String
        let token: String
        let after: Duration
    }

    /// The longest wait for a push that the console's request sits through.
    static let longestPushWaitInRequest = Duration.seconds(10)

    /// Sends the session's payload to each token and records how it went.
    func dispatch(_ record: SessionRecord, to explicitToken: String?) async throws(BackendError) -> BackendSession {
        let userId = record.userId
        let tokens: [String]
        if let explicitToken {
            tokens = [explicitToken]
        } else {
            tokens = try await read { tx in try tx.pushTokens(ofUser: userId) }
        }
        var outcomes: [String] = []
        var deferred: [DeferredPush] = []
        for token in tokens {
            let series = await sendPush(record, to: token, waitingAtMost: Self.longestPushWaitInRequest)
            if let wait = series.deferredBy {
                deferred.append(DeferredPush(sessionId: record.id, token: token, after: wait))
            }
            outcomes.append(Self.outcome(of: series))
        }
        let outcome =
            outcomes.isEmpty
            ? "dispatchTargetNotFound" : ["dispatched", Self.waiting].first { outcomes.contains($0) } ?? outcomes[0]
        let time = now()
        let retryAt = deferred.map { time + TimeInterval($0.after.components.seconds) }.min()
        let final = try await write { tx -> SessionRecord in
            try tx.recordDispatch(outcome, retryAt: outcome == Self.waiting ? retryAt : nil, sessionId: record.id, at: time)
            return try tx.session(id: record.id) ?? record
        }
        for push in deferred { deferredPushes.continuation.yield(push) }
        return publish(final)
    }

    /// A push the push service throttled, waiting for `pushRetryAt`.
    static let waiting = "dispatchWaiting"

    static func outcome(of series: Retrying.Series<Bool>) -> String {
        if series.value != nil { return "dispatched" }
        if series.deferredBy != nil { return waiting }
        return series.attempts.last?.outcome ?? "dispatchError"
    }

    /// Sends the pushes the console's requests could not wait for, each once its wait is over,
    /// until the task is cancelled (the server's shutdown).
    public func sendDeferredPushes() async {
        await withDiscardingTaskGroup { group in
            for await push in deferredPushes.stream {
                group.addTask { await self.sendDeferred(push) }
            }
        }
    }

    /// The rest of a deferred push's retries, and how they went; a session that no longer waits
    /// for a phone (it was opened another way, or expired) is not pushed.
    func sendDeferred(_ push: DeferredPush) async {
        do { try await sleep(push.after) } catch { return }
        guard let record = try? await read({ tx in try tx.session(id: push.sessionId) }) else { return }
        let outcome =
            (try? record.machine.check(.pushed, at: now())) != nil
            ? Self.outcome(of: await sendPush(record, to: push.token, waitingAtMost: nil))
            : "dispatchError: not sent, the session no longer waits for a phone"
        let time = now()
        let final = try? await write { tx -> SessionRecord? in
            // another token's push may have gone already: a later failure does not undo it
            let current = try tx.session(id: push.sessionId)
            try tx.recordDispatch(current?.dispatch == "dispatched" ? "dispatched" : outcome, sessionId: push.sessionId, at: time)
            return try tx.session(id: push.sessionId)
        }
        if let final { _ = publish(final) }
    }

    /// One push's series of attempts, with the faults set on the push service striking them.
    private func sendPush(_ record: SessionRecord, to token: String, waitingAtMost longestWait: Duration?) async -> Retrying.Series<Bool> {
        let (title, body): (String, String) =
            switch record.sessionType {
            case .login: ("Log in to \(configuration.serverName)?", "Confirm the login of \(record.userId) on this phone.")
            case .transaction: ("Confirm a transaction at \(configuration.serverName)", "A transaction for \(record.userId) waits for you.")
            default: ("Add an account at \(configuration.serverName)", "Enrol \(record.displayName) on this phone.")
            }
        let message = FCMSend(token: token, data: PushMessage.data(for: payload(for: record)), title: title, body: body)
        let url = (configuration.pushURL ?? baseURL()) + FCMSend.path(project: configuration.pushProject)
        let sessionId = record.id
        return await pushRetrying.run(waitingAtMost: longestWait) { [self] attempt -> AttemptOutcome<Bool> in
            var label = WireExchange.Label(from: .backend, to: .push, sessionId: sessionId, pushToken: token, attempt: attempt)
            switch await pushFault() {
            case .struck(let outcome, let fault):
                label.fault = fault
                if let bytes = try? WireHTTPClient.encode(message) { wire.recordStruck(url, bytes: bytes, label: label, error: fault) }
                return outcome
            case .late(let fault):
                label.fault = fault
            case nil:
                break
            }
            return await Self.send(message, to: url, wire: wire, label: label)
        }
    }

    /// One FCM send, judged as FCM's documentation says: 429, 500, 503 and no answer may succeed
    /// later (honouring Retry-After); UNREGISTERED and other refusals will not.
    private static func send(_ message: FCMSend, to url: String, wire: WireHTTPClient, label: WireExchange.Label) async -> AttemptOutcome<Bool> {
        let answer: WireHTTPClient.Answer
        do { answer = try await wire.post(url, json: message, label: label) } catch {
            return .retryable(reason: "dispatchError: \(error.description)", retryAfter: nil)
        }
        if answer.isSuccess { return .success(true) }
        let code = (try? answer.decode(FCMErrorBody.self))?.error.details.first?.errorCode ?? "HTTP \(answer.status)"
        if HTTPRetry.statuses.contains(Int(answer.status)) {
            return .retryable(reason: "dispatchError: \(code)", retryAfter: answer.retryAfter)
        }
        return .failure(reason: code == "UNREGISTERED" ? "dispatchTargetExpired" : "dispatchError: \(code)")
    }

    /// What a fault set on the push service did to one send: stopped it (with the attempt's
    /// outcome), or only made it late; both in words for the timeline.
    private enum PushFault {
        case struck(AttemptOutcome<Bool>, String)
        case late(String)

        /// The send's outcome and the timeline's text read off one fault text.
        static func struck(retryable: Bool, _ fault: String, retryAfter: Duration? = nil) -> PushFault {
            let reason = "dispatchError: \(fault)"
            return .struck(retryable ? .retryable(reason: reason, retryAfter: retryAfter) : .failure(reason: reason), fault)
        }
    }

    /// A fault set on the push service strikes the backend's send as the network would; a late
    /// answer lets the send go on.
    private func pushFault() async -> PushFault? {
        guard let faults, let fault = faults.strike([.push], requests: true) else { return nil }
        switch fault {
        case .unreachable:
            return .struck(retryable: true, "connection refused (a fault set on purpose)")
        case .hang:
            try? await sleep(.seconds(10))
            return .struck(retryable: true, "no answer (a fault set on purpose)")
        case .status(let code, let retryAfter):
            return .struck(
                retryable: HTTPRetry.statuses.contains(code), "HTTP \(code) (a fault set on purpose)", retryAfter: retryAfter.map { .seconds($0) }
            )
        case .latency(let minimum, let maximum):
            let delay = faults.latency(minimum, maximum)
            try? await sleep(delay)
            return .late("latency of \(delay) (a fault set on purpose)")
        case .drop, .delay, .offline:
            return nil
        }
    }

    /// The part of FCM's error answer the backend reads.
    private struct FCMErrorBody: Decodable {
        struct Inner: Decodable {
            struct Detail: Decodable { let errorCode: String }
            let details: [Detail]
        }
        let error: Inner
    }
}
