/// The Second Factor Server's rules for wrong PINs: block after `maxAttempts` consecutive
/// failures, and optionally wait a while after some of them (the Nevis Access App waits 60 s
/// after the 3rd and 180 s after the 4th).
public struct SecondFactorPolicy: Sendable, Equatable, Codable {
    public var maxAttempts: Int
    /// Seconds to wait after the n-th consecutive failure (index 0 = the first); missing = 0.
    public var penalties: [Int]

    public static let nextAuth = SecondFactorPolicy(maxAttempts: 3, penalties: [])

    public init(maxAttempts: Int, penalties: [Int]) {
        self.maxAttempts = maxAttempts
        self.penalties = penalties
    }

    public func penalty(afterFailures failures: Int) -> Int {
        failures >= 1 && failures <= penalties.count ? penalties[failures - 1] : 0
    }
}
