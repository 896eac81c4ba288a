import BackendAPI
import Foundation
import GRDB
import Storage

/// The sessions' reads and writes. A session's insert and update announce it to the other
/// instances sharing the database (their consoles show it).
extension BackendStore.Transaction {
    func session(id: String) throws -> SessionRecord? {
        try sql.fetchOne(SessionRecord.self, "SELECT * FROM session WHERE id = ?", [id])
    }

    func session(token: String) throws -> SessionRecord? {
        try sql.fetchOne(SessionRecord.self, "SELECT * FROM session WHERE token = ?", [token])
    }

    func recentSessions(limit: Int) throws -> [SessionRecord] {
        try sql.fetchAll(SessionRecord.self, "SELECT * FROM session ORDER BY createdAt DESC, id DESC LIMIT ?", [limit])
    }

    /// The user's sessions of the given types still waiting for a phone, for this account or
    /// any of the user's, newest first.
    func pendingSessions(of account: AccountRecord, types: [WireSessionType], at time: Date) throws -> [SessionRecord] {
        let kinds = Set(types.map(\.rawValue))
        return try sql.fetchAll(
            SessionRecord.self,
            """
            SELECT * FROM session WHERE userId = ? AND (accountId IS NULL OR accountId = ?) AND status = ? AND expiresAt > ?
            ORDER BY createdAt DESC, id DESC
            """,
            [account.userId, account.id, SessionStatus.pending.rawValue, StoredDate(time)]
        ).filter { kinds.contains($0.type) }
    }

    func insert(_ session: SessionRecord) throws {
        try SessionRecord.insertion.run(session, sql)
        try sql.announce(StoreNotice(BackendStore.sessionTopic, session.id))
    }

    func update(_ session: SessionRecord) throws {
        try sql.execute(
            """
            UPDATE session SET type = ?, userId = ?, displayName = ?, token = ?, status = ?, challenge = ?, deviceId = ?,
                accountId = ?, failure = ?, otplogin = ?, createdAt = ?, expiresAt = ?, updatedAt = ?, delivery = ?,
                dispatch = ?, transactionText = ?, transactionSignature = ?, userInput = ?, devicePublicKey = ?
            WHERE id = ?
            """,
            [
                session.type, session.userId, session.displayName, session.token, session.status, session.challenge,
                session.deviceId, session.accountId, session.failure, session.otplogin, StoredDate(session.createdAt),
                StoredDate(session.expiresAt), StoredDate(session.updatedAt), session.delivery, session.dispatch, session.transactionText,
                session.transactionSignature,
                session.userInput, session.devicePublicKey, session.id,
            ])
        try sql.announce(StoreNotice(BackendStore.sessionTopic, session.id))
    }

    /// Only the dispatch columns: a phone that opens pushes at once may have redeemed the
    /// session already, and writing the whole record back would undo that. A session pushed
    /// after it was shown as a QR code is a pushed one from then on.
    func recordDispatch(_ outcome: String, retryAt: Date? = nil, sessionId: String, at time: Date) throws {
        try sql.execute(
            "UPDATE session SET delivery = 'push', dispatch = ?, pushRetryAt = ?, updatedAt = ? WHERE id = ?",
            [outcome, retryAt.map(StoredDate.init), StoredDate(time), sessionId])
        try sql.announce(StoreNotice(BackendStore.sessionTopic, sessionId))
    }

    /// The tokens of the devices that hold an account of the user and take pushes.
    func pushTokens(ofUser userId: String) throws -> [String] {
        try sql.fetchAll(
            String.self,
            """
            SELECT DISTINCT device.fcmToken FROM device JOIN account ON account.deviceId = device.deviceId
            WHERE account.userId = ? AND device.fcmToken IS NOT NULL
            """, [userId])
    }
}

extension SessionRecord {
    /// Every new session, one a login.
    static let insertion = NamedInsert<SessionRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "type": { $0.type }, "userId": { $0.userId }, "displayName": { $0.displayName }, "token": { $0.token },
            "status": { $0.status }, "challenge": { $0.challenge }, "deviceId": { $0.deviceId }, "accountId": { $0.accountId },
            "failure": { $0.failure }, "otplogin": { $0.otplogin }, "createdAt": { StoredDate($0.createdAt) },
            "expiresAt": { StoredDate($0.expiresAt) }, "updatedAt": { StoredDate($0.updatedAt) }, "delivery": { $0.delivery },
            "dispatch": { $0.dispatch }, "transactionText": { $0.transactionText }, "transactionSignature": { $0.transactionSignature },
            "userInput": { $0.userInput }, "devicePublicKey": { $0.devicePublicKey }, "announceInfo": { try jsonText($0.announceInfo) },
            "announceLogo": { $0.announceLogo }, "skipConfirmation": { $0.skipConfirmation }, "skipSecondFactor": { $0.skipSecondFactor },
            "pushRetryAt": { $0.pushRetryAt.map(StoredDate.init) },
        ])
}

extension BackendStore {
    /// What a session's insert or update announces: the session with this id changed.
    static let sessionTopic = "session"
}
