import Foundation

/// privacyIDEA's JSON answers (`{"result": {"status", "value", "error"}, "detail": …}`) read for
/// what the phone needs; its error text becomes the refusal's message.
public enum PrivacyIDEAAnswers {
    /// The registration's answer: privacyIDEA's public key for the new token.
    public static func serverKey(_ body: Data) throws(PrivacyIDEAError) -> PrivacyIDEAServerKey {
        let root = try result(body)
        guard let detail = root["detail"] as? [String: Any], let key = detail["public_key"] as? String, !key.isEmpty else {
            throw .answer("privacyIDEA's registration answer carries no public key")
        }
        return try PrivacyIDEAServerKey(key)
    }

    /// A poll's answer: the open challenges' fields, each to be read by `PushChallenge`.
    public static func challenges(_ body: Data) throws(PrivacyIDEAError) -> [[String: Any]] {
        let root = try result(body)
        guard let value = (root["result"] as? [String: Any])?["value"] as? [Any] else {
            throw .answer("privacyIDEA's poll answer has no list of challenges")
        }
        var challenges: [[String: Any]] = []
        for entry in value {
            guard let fields = entry as? [String: Any] else { throw .answer("privacyIDEA's poll answer lists something not a challenge") }
            challenges.append(fields)
        }
        return challenges
    }

    /// An answer's or an FCM token update's outcome: privacyIDEA says `value: true` when it
    /// matched an open challenge and its signature.
    public static func accepted(_ body: Data) throws(PrivacyIDEAError) -> Bool {
        (try result(body)["result"] as? [String: Any])?["value"] as? Bool ?? false
    }

    /// The answer's JSON with `result.status` true, or privacyIDEA's own error as the refusal.
    public static func result(_ body: Data) throws(PrivacyIDEAError) -> [String: Any] {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let result = root["result"] as? [String: Any]
        else { throw .answer("privacyIDEA's answer is not its JSON") }
        guard result["status"] as? Bool == true else {
            let error = result["error"] as? [String: Any]
            let message = (error?["message"] as? String).map { String($0.prefix(300)) } ?? "no reason given"
            throw .answer("privacyIDEA refused: \(message)")
        }
        return root
    }
}
