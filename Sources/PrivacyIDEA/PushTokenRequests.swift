import Foundation

/// The form fields the phone sends to privacyIDEA's `/ttype/push` (`_api_endpoint_post` and
/// `_api_endpoint_get` in its `lib/tokens/pushtoken.py`), each signed with the token's key where
/// privacyIDEA checks one. Pure: the caller sends them.
public enum PushTokenRequests {
    public typealias Fields = [(name: String, value: String)]

    /// The enrolment's second step: the phone's key and FCM token, proven by the credential the
    /// QR code carried.
    public static func registration(_ enrolment: PushEnrolment, fcmToken: String, key: PushTokenKey) -> Fields {
        [
            ("enrollment_credential", enrolment.enrollmentCredential), ("serial", enrolment.serial), ("fbtoken", fcmToken),
            ("pubkey", key.publicKeyForServer),
        ]
    }

    /// The answer to a challenge: signs `nonce|serial`, then `|decline`, then the presence option.
    public static func answer(_ challenge: PushChallenge, _ answer: PushAnswer, key: PushTokenKey) throws(PrivacyIDEAError) -> Fields {
        var signed = "\(challenge.nonce)|\(challenge.serial)"
        var fields: Fields = [("serial", challenge.serial), ("nonce", challenge.nonce)]
        switch answer {
        case .decline(let reason):
            signed += "|decline"
            fields.append(("decline", "1"))
            if let reason {
                signed += "|\(reason.rawValue)"
                fields.append(("decline_reason", reason.rawValue))
            }
        case .accept(let presence?):
            signed += "|\(presence)"
            fields.append(("presence_answer", presence))
        case .accept(nil):
            break
        }
        fields.append(("signature", try key.sign(signed)))
        return fields
    }

    /// A poll for open challenges: signs `serial|timestamp`; privacyIDEA takes a timestamp within a
    /// minute of its clock.
    public static func poll(serial: String, at date: Date, key: PushTokenKey) throws(PrivacyIDEAError) -> Fields {
        let timestamp = timestampText(date)
        return [("serial", serial), ("timestamp", timestamp), ("signature", try key.sign("\(serial)|\(timestamp)"))]
    }

    /// A new FCM token for the token: signs `new_fb_token|serial|timestamp`.
    public static func fcmTokenUpdate(serial: String, newToken: String, at date: Date, key: PushTokenKey) throws(PrivacyIDEAError)
        -> Fields
    {
        let timestamp = timestampText(date)
        return [
            ("new_fb_token", newToken), ("serial", serial), ("timestamp", timestamp),
            ("signature", try key.sign("\(newToken)|\(serial)|\(timestamp)")),
        ]
    }

    /// ISO 8601 in UTC with milliseconds, as the app's `toUtc().toIso8601String()` writes it.
    public static func timestampText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// `application/x-www-form-urlencoded`, as a form or a query string.
    public static func encoded(_ fields: Fields) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return fields.map { field in
            let name = field.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            let value = field.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            return "\(name)=\(value)"
        }.joined(separator: "&")
    }
}
