import Storage

/// Several instances on one PostgreSQL: what the others record reaches the live timelines
/// watching here.
extension Timeline {
    /// Hands the hops other instances store to the live pages here (`hops`), until the task is
    /// cancelled; returns at once on SQLite, which one process holds. Each batch announces its
    /// hops' ids; they are read only while a page watches. A page that missed some while the
    /// listener listened again finds them when it loads a session or a phone anew.
    public func relayOtherInstancesHops() async {
        guard let notices = store.database.notices() else { return }
        for await hearing in notices {
            guard case .changed(let notice) = hearing, notice.topic == TimelineStore.hopsTopic, hops.subscriberCount > 0 else { continue }
            let ids = notice.id.split(separator: ",").compactMap { Int64($0) }
            guard let records = try? await store.hops(ids: ids) else { continue }
            for record in records { hops.send(Hop(record)) }
        }
    }
}
