import BackendAPI
import Foundation
import OutOfBand

/// A session as the console and a relying party see it: its login status and the three ways
/// to hand it to a phone.
public struct BackendSession: Codable, Sendable, Equatable {
    public var id: String
    public var type: String
    public var userId: String
    public var displayName: String
    public var status: SessionStatus
    public var qrText: String
    public var deepLink: String
    public var qrImageUrl: String
    public var createdAt: Date
    public var expiresAt: Date
    public var accountId: String?
    public var loggedin: Bool
    public var otplogin: Bool
    public var failure: String?
    /// `qr` or `push`; for a push, how its dispatch went.
    public var delivery: String
    public var dispatch: String?
    /// When a push the push service throttled (`dispatchWaiting`) goes again.
    public var pushRetryAt: Date?
    /// A transaction's text, and whether the user's account key signed it.
    public var transaction: String?
    public var transactionSigned: Bool
    /// Free text the user sent when confirming.
    public var userInput: String?

    init(_ record: SessionRecord, payload: OutOfBandPayload, now: Date) {
        id = record.id
        type = record.type
        userId = record.userId
        displayName = record.displayName
        status = record.status(at: now)
        qrText = payload.qrText
        deepLink = payload.deepLink
        qrImageUrl = BackendRoutes.qrImage(record.id)
        createdAt = record.createdAt
        expiresAt = record.expiresAt
        accountId = record.accountId
        loggedin = record.status == .loggedin
        otplogin = record.otplogin
        failure = record.failure
        delivery = record.delivery
        dispatch = record.dispatch
        pushRetryAt = record.pushRetryAt
        transaction = record.transactionText
        transactionSigned = record.transactionSignature != nil
        userInput = record.userInput
    }
}

/// A session's change as what counts and logs them sees it: the view's status, without the
/// view's QR text and deep link.
public struct SessionChange: Sendable, Equatable {
    public var id: String
    public var type: String
    public var userId: String
    public var status: SessionStatus
    public var failure: String?

    init(_ record: SessionRecord, now: Date) {
        id = record.id
        type = record.type
        userId = record.userId
        status = record.status(at: now)
        failure = record.failure
    }
}
