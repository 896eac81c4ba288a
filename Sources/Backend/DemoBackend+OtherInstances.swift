import Storage

/// Several instances on one PostgreSQL: a console shows the sessions another instance changes
/// as its own.
extension DemoBackend {
    /// Sends the sessions other instances change to the consoles watching here (`events`), until
    /// the task is cancelled; returns at once on SQLite, which one process holds. What counts
    /// sessions (`changes`) counts those of its own instance only, so that the instances' counts
    /// add up. When the listener listens again after a break, the consoles get the recent
    /// sessions anew (a console knows a session by its id).
    public func relayOtherInstancesSessions() async {
        guard let notices = store.database.notices() else { return }
        for await hearing in notices where events.subscriberCount > 0 {
            let records: [SessionRecord]
            switch hearing {
            case .changed(let notice) where notice.topic == BackendStore.sessionTopic:
                records = (try? await read { tx in try tx.session(id: notice.id) }).flatMap { $0 }.map { [$0] } ?? []
            case .changed: records = []
            case .listening: records = (try? await read { tx in try tx.recentSessions(limit: Self.sessionsResent) }) ?? []
            }
            let time = now()
            for record in records { events.send(view(record, at: time)) }
        }
    }

    /// How many of the newest sessions a console is sent again after the listener's break.
    static let sessionsResent = 100
}
