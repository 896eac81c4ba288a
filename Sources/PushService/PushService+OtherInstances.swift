import Storage

/// Several instances on one PostgreSQL: a push the FCM endpoint of one takes reaches the phone's
/// screen wherever it is connected.
extension PushService {
    /// Hands the messages other instances deliver to the screens connected here (`deliveries`)
    /// and to what tells of every push (`otherInstancesDeliveries`), until the task is cancelled;
    /// returns at once on SQLite, which one process holds. Whatever acts on every push (the
    /// opener, the timeline) did so on the instance that took it. When
    /// the listener listens again after a break, each open screen is given its inbox anew
    /// (screens know a message by its id, so none shows twice).
    public func relayOtherInstancesDeliveries() async {
        guard let notices = store.database.notices() else { return }
        for await hearing in notices {
            switch hearing {
            case .changed(let notice) where notice.topic == PushStore.inboxTopic:
                guard let (token, message) = try? await store.inboxMessage(id: notice.id) else { continue }
                if deliveries.hasSubscribers(token) {
                    deliveries.send(message, to: token)
                    // the instance that took it saw no screen open and logged it as waiting
                    try? await store.shownAsBanner(id: message.id)
                }
                otherInstancesDeliveries.send((token, message))
            case .changed: continue
            case .listening:
                for token in deliveries.subscribedKeys {
                    for message in (try? await store.inbox(token: token)) ?? [] { deliveries.send(message, to: token) }
                }
            }
        }
    }
}
