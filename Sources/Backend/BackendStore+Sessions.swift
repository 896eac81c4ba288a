import BackendAPI
import Foundation
import GRDB
import Storage

/// The sessions' reads and writes. The ones every login out of band runs use cached statements:
/// GRDB's query interface builds and prepares its SQL again on each call.
extension BackendStore.Transaction {
    func session(id: String) throws -> SessionRecord? {
        try SessionRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM session WHERE id = ?"), arguments: [id])
    }

    func session(token: String) throws -> SessionRecord? {
        try SessionRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM session WHERE token = ?"), arguments: [token])
    }

    func recentSessions(limit: Int) throws -> [SessionRecord] {
        try SessionRecord.order(SessionRecord.Columns.createdAt.desc).limit(limit).fetchAll(db)
    }

    /// The user's sessions of the given types still waiting for a phone, for this account or
    /// any of the user's, newest first.
    func pendingSessions(of account: AccountRecord, types: [WireSessionType], at time: Date) throws -> [SessionRecord] {
        try SessionRecord
            .filter(
                Column("userId") == account.userId
                    && types.map(\.rawValue).contains(Column("type"))
                    && (Column("accountId") == nil || Column("accountId") == account.id)
                    && Column("status") == SessionStatus.pending.rawValue && Column("expiresAt") > StoredDate(time)
            )
            .order(SessionRecord.Columns.createdAt.desc).fetchAll(db)
    }

    func insert(_ session: SessionRecord) throws {
        try SessionRecord.insertion.run(session, db)
    }

    func update(_ session: SessionRecord) throws {
        try db.cachedStatement(
            sql: """
                UPDATE session SET type = ?, userId = ?, displayName = ?, token = ?, status = ?, challenge = ?, deviceId = ?,
                    accountId = ?, failure = ?, otplogin = ?, createdAt = ?, expiresAt = ?, updatedAt = ?, delivery = ?,
                    dispatch = ?, transactionText = ?, transactionSignature = ?, userInput = ?, devicePublicKey = ?
                WHERE id = ?
                """
        ).execute(arguments: [
            session.type, session.userId, session.displayName, session.token, session.status, session.challenge,
            session.deviceId, session.accountId, session.failure, session.otplogin, StoredDate(session.createdAt),
            StoredDate(session.expiresAt), StoredDate(session.updatedAt), session.delivery, session.dispatch, session.transactionText,
            session.transactionSignature,
            session.userInput, session.devicePublicKey, session.id,
        ])
    }

    /// Only the dispatch columns: a phone that opens pushes at once may have redeemed the
    /// session already, and writing the whole record back would undo that. A session pushed
    /// after it was shown as a QR code is a pushed one from then on.
    func recordDispatch(_ outcome: String, retryAt: Date? = nil, sessionId: String, at time: Date) throws {
        try db.cachedStatement(sql: "UPDATE session SET delivery = 'push', dispatch = ?, pushRetryAt = ?, updatedAt = ? WHERE id = ?")
            .execute(arguments: [outcome, retryAt.map(StoredDate.init), StoredDate(time), sessionId])
    }

    /// The tokens of the devices that hold an account of the user and take pushes.
    func pushTokens(ofUser userId: String) throws -> [String] {
        try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT DISTINCT device.fcmToken FROM device JOIN account ON account.deviceId = device.deviceId
                    WHERE account.userId = ? AND device.fcmToken IS NOT NULL
                    """), arguments: [userId])
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
