import Foundation

/// A fault as a script or the console asks for one:
/// `{"target": "backend" | "push" | "sms" | "phone", "phoneId"?, "kind": "unreachable" | "offline" | "hang" | "status"
/// | "latency" | "dropPush" | "delayPush" | "dropText" | "delayText", "status"?, "retryAfter"?, "minimumMs"?, "maximumMs"?,
/// "delaySeconds"?, "count"?, "seconds"?}`.
public struct FaultRequest: Codable, Sendable, Equatable {
    public var target: String
    public var phoneId: String?
    public var kind: String
    public var status: Int?
    public var retryAfter: Int?
    public var minimumMs: Int?
    public var maximumMs: Int?
    public var delaySeconds: Int?
    /// Requests (or pushes) it affects; none: all until it expires.
    public var count: Int?
    /// How long it stays at most (default 300 s).
    public var seconds: Int?

    public static let defaultLifetime = 300

    /// The target and kind it names, or the field that is wrong.
    public func parsed() throws(FaultError) -> (FaultTarget, FaultKind) {
        let target: FaultTarget
        switch (self.target, phoneId) {
        case ("backend", nil): target = .backend
        case ("push", nil): target = .push
        case ("sms", nil): target = .sms
        case ("phone", let id?): target = .phone(id)
        case ("phone", nil): throw .invalid("phoneId", "is required for a phone's fault")
        case (_, .some) where self.target != "phone": throw .invalid("phoneId", "goes only with the target 'phone'")
        default: throw .invalid("target", "must be 'backend', 'push', 'sms' or 'phone'")
        }
        let kind: FaultKind
        switch self.kind {
        case "unreachable": kind = .unreachable
        case "offline": kind = .offline
        case "hang": kind = .hang
        case "status":
            guard let status else { throw .invalid("status", "is required for the kind 'status'") }
            kind = .status(code: status, retryAfter: retryAfter)
        case "latency":
            guard let maximumMs else { throw .invalid("maximumMs", "is required for the kind 'latency'") }
            kind = .latency(minimum: minimumMs ?? maximumMs, maximum: maximumMs)
        case Self.drop(for: target): kind = .drop
        case Self.delay(for: target):
            guard let delaySeconds else { throw .invalid("delaySeconds", "is required for the kind '\(self.kind)'") }
            kind = .delay(seconds: delaySeconds)
        case "dropPush", "delayPush", "dropText", "delayText":
            throw .invalid("kind", "drops and delays pushes (dropPush, delayPush) on the target 'push', texts (dropText, delayText) on 'sms'")
        default:
            throw .invalid("kind", "must be one of unreachable, offline, hang, status, latency, dropPush, delayPush, dropText, delayText")
        }
        return (target, kind)
    }

    /// The kinds' names for what a target delivers: pushes, or texts.
    static func drop(for target: FaultTarget) -> String { target == .sms ? "dropText" : "dropPush" }
    static func delay(for target: FaultTarget) -> String { target == .sms ? "delayText" : "delayPush" }
}

/// A fault in force, as the screens and scripts see it.
public struct FaultView: Codable, Sendable, Equatable {
    public var id: String
    public var target: String
    public var phoneId: String?
    public var kind: String
    public var status: Int?
    public var retryAfter: Int?
    public var minimumMs: Int?
    public var maximumMs: Int?
    public var delaySeconds: Int?
    public var remaining: Int?
    public var createdAt: Date
    public var expiresAt: Date
    /// What it does, in words, for the banner that shows it.
    public var description: String

    public init(_ fault: Fault) {
        id = fault.id
        createdAt = fault.createdAt
        expiresAt = fault.expiresAt
        remaining = fault.remaining
        switch fault.target {
        case .phone(let id):
            target = "phone"
            phoneId = id
        case .backend: target = "backend"
        case .push: target = "push"
        case .sms: target = "sms"
        }
        let what: String
        switch fault.kind {
        case .unreachable:
            kind = "unreachable"
            what = "refuses connections"
        case .offline:
            kind = "offline"
            what = "cannot be reached: the phone is offline (airplane mode)"
        case .hang:
            kind = "hang"
            what = "never answers (requests time out)"
        case .status(let code, let after):
            kind = "status"
            status = code
            retryAfter = after
            what = "answers \(code)" + (after.map { " with Retry-After \($0) s" } ?? "")
        case .latency(let low, let high):
            kind = "latency"
            minimumMs = low
            maximumMs = high
            what = low == high ? "answers \(high) ms late" : "answers \(low)–\(high) ms late"
        case .drop:
            kind = FaultRequest.drop(for: fault.target)
            what = fault.target == .sms ? "drops texts" : "drops pushes"
        case .delay(let seconds):
            kind = FaultRequest.delay(for: fault.target)
            delaySeconds = seconds
            what = (fault.target == .sms ? "delivers texts " : "delivers pushes ") + "\(seconds) s late"
        }
        let subject =
            switch fault.target {
            case .phone: "The backend, for this phone,"
            case .backend: "The backend"
            case .push: "The push service"
            case .sms: "The SMS gateway"
            }
        description = "\(subject) \(what)" + (fault.remaining.map { " (\($0) more)" } ?? "")
    }
}
