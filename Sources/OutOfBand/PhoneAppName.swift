/// The apps on a phone, by the name their notifications show: the app a push is for is the one
/// that claims it, as a phone's OS hands a message to the app it belongs to (and a scanned code
/// goes by its scheme, `ScannedCode`).
public enum PhoneAppName: String, Codable, Sendable {
    /// The seeds' SDK app: AuthPhone's out-of-band payloads, and any other message.
    case authPhone = "AuthPhone"
    /// privacyIDEA's authenticator: its login challenges.
    case privacyIDEA

    /// privacyIDEA's challenge is its nonce, serial and signature with no AuthPhone payload
    /// (`nma_data`); everything else is AuthPhone's.
    public static func claiming(push data: [String: String]) -> PhoneAppName {
        data["nma_data"] == nil && ["nonce", "serial", "signature"].allSatisfy { data[$0] != nil } ? .privacyIDEA : .authPhone
    }
}
