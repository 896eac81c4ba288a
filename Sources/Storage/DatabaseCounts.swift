import Synchronization

/// What one store asked of PostgreSQL so far: transactions (each run, as PostgreSQL counts them:
/// one run again after a lost serialization race is one more), statements, and those lost races. Read by `/metrics` and, through it, by the
/// bench, which divides them by the logins it made: the round trips a login costs, as the
/// driver sees them.
public final class DatabaseCounts: Sendable {
    private let transactionsBegun = Atomic(0)
    private let statementsSent = Atomic(0)
    private let racesLost = Atomic(0)

    public init() {}

    /// The totals at one moment.
    public struct Totals: Sendable, Equatable {
        public var transactions: Int
        public var statements: Int
        public var lostRaces: Int

        public init(transactions: Int = 0, statements: Int = 0, lostRaces: Int = 0) {
            (self.transactions, self.statements, self.lostRaces) = (transactions, statements, lostRaces)
        }
    }

    public var totals: Totals {
        Totals(
            transactions: transactionsBegun.load(ordering: .relaxed), statements: statementsSent.load(ordering: .relaxed),
            lostRaces: racesLost.load(ordering: .relaxed))
    }

    func began() { transactionsBegun.add(1, ordering: .relaxed) }
    func sent() { statementsSent.add(1, ordering: .relaxed) }
    func lost() { racesLost.add(1, ordering: .relaxed) }
}
