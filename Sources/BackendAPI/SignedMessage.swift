import Foundation

/// The exact bytes each party signs. Domain-separated so that no signature can be replayed as
/// another kind, and bound to the session and its current single-use challenge.
public enum SignedMessage {
    public static func redeem(token: String, deviceId: String, devicePublicKey: String) -> [UInt8] {
        Array("authphone/v1 redeem\n\(token)\n\(deviceId)\n\(devicePublicKey)".utf8)
    }
    public static func abandon(sessionId: String, code: String) -> [UInt8] {
        Array("authphone/v1 abandon\n\(sessionId)\n\(code)".utf8)
    }
    public static func server(sessionId: String, challenge: String) -> [UInt8] {
        Array("authphone/v1 server\n\(sessionId)\n\(challenge)".utf8)
    }
    public static func confirm(sessionId: String, challenge: String, accountId: String) -> [UInt8] {
        Array("authphone/v1 confirm\n\(sessionId)\n\(challenge)\n\(accountId)".utf8)
    }
    public static func enrol(sessionId: String, challenge: String, accountPublicKey: String) -> [UInt8] {
        Array("authphone/v1 enrol\n\(sessionId)\n\(challenge)\n\(accountPublicKey)".utf8)
    }
    /// The text's UTF-8 bytes themselves are signed, so any change to it breaks the signature.
    public static func transaction(sessionId: String, challenge: String, accountId: String, text: String) -> [UInt8] {
        Array("authphone/v1 transaction\n\(sessionId)\n\(challenge)\n\(accountId)\n".utf8) + Array(text.utf8)
    }
    public static func verifySecondFactor(sessionId: String, challenge: String, accountId: String) -> [UInt8] {
        Array("authphone/v1 pin\n\(sessionId)\n\(challenge)\n\(accountId)".utf8)
    }
    public static func management(accountId: String, type: WireSessionType, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 manage\n\(accountId)\n\(type.rawValue)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
    public static func setSecondFactor(sessionId: String, challenge: String, factor: String, publicKey: String) -> [UInt8] {
        Array("authphone/v1 set\n\(sessionId)\n\(challenge)\n\(factor)\n\(publicKey)".utf8)
    }
    public static func rotate(sessionId: String, challenge: String, accountId: String, newPublicKey: String) -> [UInt8] {
        Array("authphone/v1 rotate\n\(sessionId)\n\(challenge)\n\(accountId)\n\(newPublicKey)".utf8)
    }
    public static func removeAccount(accountId: String, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 remove\n\(accountId)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
    public static func deviceChange(_ request: DeviceInformationChangeRequest) -> [UInt8] {
        let disable = request.disablePushNotifications == true ? "disable" : ""
        return Array(
            ("authphone/v1 device\n\(request.accountId)\n\(Int(request.timestamp.timeIntervalSince1970))\n"
                + "\(request.name ?? "")\n\(request.fcmToken ?? "")\n\(disable)").utf8)
    }
    /// Binds the backend's OTP key half and the reference to the enrolment and the phone's half.
    public static func otpEnrolment(
        sessionId: String, accountId: String, reference: UInt32, serverPublicKey: String,
        phonePublicKey: String
    ) -> [UInt8] {
        Array("authphone/v1 otp\n\(sessionId)\n\(accountId)\n\(reference)\n\(serverPublicKey)\n\(phonePublicKey)".utf8)
    }
    /// Bound to the time so that a captured request stops working within minutes.
    public static func pending(accountId: String, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 pending\n\(accountId)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
}
