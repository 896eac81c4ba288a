import Foundation
import Synchronization

/// The device's automation over any app (docs/scripting.md#auto-answer-rules): each phone's
/// auto-answer rules, in memory only. Each app asks it when a request of its own waits for the user.
final class Automation: Sendable {
    private let rules = Mutex<[String: AutoAnswerRules]>([:])

    func count(phoneId: String) -> Int { rules.withLock { $0[phoneId]?.rules.count ?? 0 } }

    func add(_ rule: AutoAnswerRule, phoneId: String) { rules.withLock { $0[phoneId, default: AutoAnswerRules()].add(rule) } }

    func current(phoneId: String, at now: Date) -> [AutoAnswerRule] { rules.withLock { $0[phoneId]?.current(at: now) ?? [] } }

    /// Whether a rule of that id was there.
    func remove(id: String, phoneId: String) -> Bool { rules.withLock { $0[phoneId]?.remove(id: id) == true } }

    /// The phone's rules go (it was cleared, deleted or moved to another instance).
    func forget(phoneId: String) { rules.withLock { $0[phoneId] = nil } }

    func forgetAll() { rules.withLock { $0.removeAll() } }

    /// The rule that answers a request, counted once (`AutoAnswerRules.answer`).
    func answer(
        _ request: AutoAnswerRequest, phoneId: String, at now: Date, continuing: AutoAnswerRule? = nil
    ) -> (decision: AutoAnswerDecision, rule: AutoAnswerRule)? {
        rules.withLock { $0[phoneId]?.answer(request, at: now, continuing: continuing) }
    }

    /// Rules whose PIN was checked under another salt than the phone's now.
    func rulesToCheck(phoneId: String, salt: Data?) -> [AutoAnswerRule] {
        rules.withLock { ($0[phoneId]?.rules ?? []).filter { $0.pin != nil && $0.pinCheckedWith != salt } }
    }

    func pinChecked(rule id: String, phoneId: String, salt: Data, fits: Bool) {
        rules.withLock { $0[phoneId]?.pinChecked(rule: id, salt: salt, fits: fits) }
    }
}
