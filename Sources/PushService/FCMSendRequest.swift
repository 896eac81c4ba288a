import Foundation
import OutOfBand
import StrictJSON
import WireJSON

/// An FCM HTTP v1 send request, checked the way FCM checks it for what AuthPhone covers.
/// Pure: bytes in, a validated request or an `FCMError` out.
public struct FCMSendRequest: Equatable, Sendable {
    /// Whom a message is for: the app instance's registration token, or (as the Admin SDKs now
    /// send) its Firebase installation id.
    public enum Target: Equatable, Sendable {
        case token(String)
        case fid(String)

        /// The token or the fid as the sender gave it.
        public var given: String {
            switch self {
            case .token(let token), .fid(let token): token
            }
        }
    }

    public var target: Target
    public var message: PushMessage
    public var validateOnly: Bool

    /// FCM's limit on a message's data and notification together.
    public static let payloadLimit = 4096
    public static let reservedKeys: Set<String> = ["from", "message_type"]
    public static let reservedPrefixes = ["google.", "gcm."]
    /// The fields that name a message's recipient, of which FCM takes exactly one.
    public static let targetFields = ["token", "topic", "condition", "fid"]
    /// The fields of an FCM HTTP v1 message (`fcm_options` by its JSON name too, as protobuf's parser takes it).
    public static let knownMessageFields: Set<String> = [
        "name", "token", "topic", "condition", "fid", "data", "notification", "android", "apns", "webpush", "fcm_options", "fcmOptions",
    ]

    public static func parse(_ bytes: [UInt8]) throws(FCMError) -> FCMSendRequest {
        // FCM's own parser (protobuf JSON) refuses a key given twice and anything else RFC 8259 does.
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(bytes) } catch { throw .invalidArgument("Invalid JSON payload received. \(error.message)") }
        guard kinds[""] == .object else { throw .invalidArgument("Invalid JSON payload received.") }
        let decoder = WireJSON.decoder()
        decoder.userInfo[FCMSendBody.requestKey] = bytes
        let body: FCMSendBody
        do { body = try decoder.decode(FCMSendBody.self, from: Data(bytes)) } catch let error as FCMError { throw error } catch {
            throw .invalidArgument("Invalid JSON payload received.")
        }
        let message = PushMessage(data: body.message.data, notification: body.message.notification)
        let dataSize = message.data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        let notificationSize = (message.notification?.title?.utf8.count ?? 0) + (message.notification?.body?.utf8.count ?? 0)
        let size = dataSize + notificationSize
        guard size <= payloadLimit else {
            throw .invalidArgument("Message is too big: \(size) bytes of data and notification, the limit is \(payloadLimit).", rule: .sizeLimit)
        }
        return FCMSendRequest(target: body.message.target, message: message, validateOnly: body.validateOnly)
    }

    /// A data key FCM keeps for itself.
    static func isReserved(_ key: String) -> Bool {
        reservedKeys.contains(key) || reservedPrefixes.contains(where: key.hasPrefix)
    }

    /// The target a message names, read leniently, so that a refused message is logged with its
    /// target too: its token, else its topic, condition or fid.
    public static func target(in bytes: [UInt8]) -> String? {
        (try? WireJSON.decoder().decode(LoggedTarget.self, from: Data(bytes)))?.target
    }

    /// Whatever the message names first of its targets, if a string; nothing else is looked at.
    private struct LoggedTarget: Decodable {
        let target: String?

        init(from decoder: any Decoder) throws {
            let message = try decoder.container(keyedBy: WireJSON.MemberName.self).nestedContainer(
                keyedBy: WireJSON.MemberName.self, forKey: .init("message"))
            target = targetFields.lazy.compactMap { try? message.decode(String.self, forKey: .init($0)) }.first
        }
    }
}
