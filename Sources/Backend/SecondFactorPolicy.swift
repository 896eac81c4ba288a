/// The Second Factor Server's rules for wrong PINs: block after `maxAttempts` consecutive
/// failures, and optionally wait a while after some of them. Two presets follow the seeds:
/// nextAuth blocks at the 3rd failure with no waits; the Nevis Access App waits 60 s after the
/// 3rd and 180 s after the 4th, and blocks at the 5th.
public struct SecondFactorPolicy: Sendable, Equatable, Codable {
    public var maxAttempts: Int
    /// Seconds to wait after the n-th consecutive failure (index 0 = the first); missing = 0.
    public var penalties: [Int]

    public static let nextAuth = SecondFactorPolicy(maxAttempts: 3, penalties: [])
    public static let nevis = SecondFactorPolicy(maxAttempts: 5, penalties: [0, 0, 60, 180])
    public static let presets: [String: SecondFactorPolicy] = ["nextAuth": .nextAuth, "nevis": .nevis]

    public static let attemptLimit = 1...100
    /// A day: longer waits are a block in all but name.
    public static let penaltyLimit = 0...86_400

    public init(maxAttempts: Int, penalties: [Int]) {
        self.maxAttempts = maxAttempts
        self.penalties = penalties
    }

    public func penalty(afterFailures failures: Int) -> Int {
        failures >= 1 && failures <= penalties.count ? penalties[failures - 1] : 0
    }

    /// The preset this policy equals, if any.
    public var presetName: String? { Self.presets.first { $0.value == self }?.key }

    /// A policy the server can apply, or the field that is wrong.
    public func validated() throws(BackendError) -> SecondFactorPolicy {
        guard Self.attemptLimit.contains(maxAttempts) else {
            throw BackendError.invalid("maxAttempts", "must be between \(Self.attemptLimit.lowerBound) and \(Self.attemptLimit.upperBound)")
        }
        // the failure that blocks needs no wait after it
        guard penalties.count < maxAttempts else {
            throw BackendError.invalid("penalties", "has \(penalties.count) entries; at most \(maxAttempts - 1) failures come before the block")
        }
        if let wrong = penalties.firstIndex(where: { !Self.penaltyLimit.contains($0) }) {
            throw BackendError.invalid("penalties", "entry \(wrong + 1) must be between 0 and \(Self.penaltyLimit.upperBound) seconds")
        }
        return self
    }
}
