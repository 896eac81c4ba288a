import Foundation
import GRDB
import Storage

/// Where a phone's flow runs when several instances share one PostgreSQL: a flow lives in the
/// memory of one instance, its home, and the others hand the phone's requests there.
public enum PhoneHome: Sendable, Equatable {
    case here
    /// Another instance, alive, reached at `url`.
    case elsewhere(instance: String, url: String)
}

extension PhoneStore {
    /// The instances alive (each says so again before `aliveUntil`) and the phones each is home
    /// to. A phone whose home has not said so in time is taken by the next instance that serves
    /// it. Times are the instances' own clocks, which must agree within a beat.
    static let homesTables = [
        "CREATE TABLE instance (id TEXT PRIMARY KEY, url TEXT NOT NULL, aliveUntil TEXT NOT NULL)",
        "CREATE TABLE phoneHome (phoneId TEXT PRIMARY KEY REFERENCES phone ON DELETE CASCADE, instance TEXT NOT NULL)",
        "CREATE INDEX phoneHome_on_instance ON phoneHome (instance)",
    ]

    /// `instance` is alive until `aliveUntil`, at `url`; instances dead since before
    /// `forgettingDeadBefore` are forgotten, and with them the phones they were home to. With
    /// `listingHomes`, answers the phones `instance` is home to, as of the moment it is alive
    /// again: an instance that was seen dead keeps those and no others.
    @discardableResult
    public func beat(
        instance: String, url: String, aliveUntil: Date, forgettingDeadBefore: Date, listingHomes: Bool = false
    ) async throws(PhoneError) -> Set<String>? {
        try await write { sql in
            try Self.instanceInsert.run(InstanceRow(id: instance, url: url, aliveUntil: StoredDate(aliveUntil)), sql)
            let dead = try sql.fetchAll(String.self, "SELECT id FROM instance WHERE aliveUntil < ?", [StoredDate(forgettingDeadBefore)])
            for id in dead {
                try sql.execute("DELETE FROM phoneHome WHERE instance = ?", [id])
                try sql.execute("DELETE FROM instance WHERE id = ?", [id])
            }
            guard listingHomes else { return nil }
            return Set(try sql.fetchAll(String.self, "SELECT phoneId FROM phoneHome WHERE instance = ?", [instance]))
        }
    }

    /// The phone's home: `instance` itself when the phone has none, or its home is `instance`, or
    /// its home has died (then `instance` takes it); else the live home. A phone that does not
    /// exist is `here`: the request that asked is answered (404) where it is.
    public func home(of phoneId: String, claimingFor instance: String, now: Date) async throws(PhoneError) -> PhoneHome {
        try await write { sql in
            // one row for a phone (its home's columns null when it has none alive), none for no phone
            guard
                let row = try sql.fetchOne(
                    PhoneHomeRow.self,
                    """
                    SELECT instance.id, instance.url, instance.aliveUntil FROM phone
                    LEFT JOIN phoneHome ON phoneHome.phoneId = phone.id LEFT JOIN instance ON instance.id = phoneHome.instance
                    WHERE phone.id = ?
                    """, [phoneId])
            else { return .here }
            if let holder = row.holder, holder.id != instance, holder.aliveUntil.date > now {
                return .elsewhere(instance: holder.id, url: holder.url)
            }
            try Self.homeInsert.run((phoneId, instance), sql)
            return .here
        }
    }

    /// Every phone gone (`POST /api/reset`, `authphone reset`); the instances sharing the
    /// database stay known.
    public func erasePhones() async throws {
        try await erase(keeping: ["instance"])
    }

    /// `instance` stops: the phones it was home to are free at once.
    public func leave(instance: String) async throws(PhoneError) {
        try await write { sql in
            try sql.execute("DELETE FROM phoneHome WHERE instance = ?", [instance])
            try sql.execute("DELETE FROM instance WHERE id = ?", [instance])
        }
    }

    private static let instanceInsert = NamedInsert<InstanceRow>(
        into: "instance", replacingOn: ["id"], ["id": { $0.id }, "url": { $0.url }, "aliveUntil": { $0.aliveUntil }])
    private static let homeInsert = NamedInsert<(phoneId: String, instance: String)>(
        into: "phoneHome", replacingOn: ["phoneId"], ["phoneId": { $0.phoneId }, "instance": { $0.instance }])
}

private struct InstanceRow: FetchableRecord {
    let id: String
    let url: String
    let aliveUntil: StoredDate

    init(id: String, url: String, aliveUntil: StoredDate) {
        (self.id, self.url, self.aliveUntil) = (id, url, aliveUntil)
    }

    init(row: Row) throws {
        (id, url, aliveUntil) = (row["id"], row["url"], row["aliveUntil"])
    }
}

/// A phone's row joined to its home's, which may be missing.
private struct PhoneHomeRow: FetchableRecord {
    let holder: InstanceRow?

    init(row: Row) throws {
        holder = (row["id"] as String?) == nil ? nil : try InstanceRow(row: row)
    }
}
