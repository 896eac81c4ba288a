import Foundation

/// What a scanned text is (a QR code's text, a link opened on the phone, what a QR picture holds),
/// told by its scheme and host alone: the one place that decides which part of the phone reads
/// it, for every door that takes one. Foreign codes are handed on as text to the module that
/// knows their format, so this module needs none of them; another kind is another case here.
public enum ScannedCode: Equatable, Sendable {
    /// `otpauth://` but for `pipush`: an OTP account's key URI (TOTP, HOTP), which OTP's
    /// `OTPAuthURI` reads (and refuses, by name, a type it does not know).
    case otpAccount(uri: String)
    /// `otpauth://pipush/…` or `pia://pipush/…`: privacyIDEA's push token enrolment; or
    /// `edumfa-push://edumfa/…`, eduMFA's, which speaks the same protocol.
    case privacyIDEAPush(uri: String)
    /// `pia://container/…`: privacyIDEA's smartphone container registration.
    case privacyIDEAContainer(uri: String)
    /// `tiqrenroll://…`: a tiqr identity's enrolment (privacyIDEA's tiqr token).
    case tiqrEnrolment(uri: String)
    /// `tiqrauth://…`: a tiqr login for an identity.
    case tiqrLogin(uri: String)
    /// Anything else: an AuthPhone payload, decoded as the door always decoded it.
    case authPhone(OutOfBandPayload)

    /// QR text as sent by hand (`{"qr": …}`).
    public init(qrText: String) throws(OutOfBandError) {
        try self.init(qrText, otherwise: OutOfBandDecoder.decode(qrText:))
    }

    /// A link opened on the phone (`{"link": …}`).
    public init(link: String) throws(OutOfBandError) {
        try self.init(link, otherwise: DeepLink.decode)
    }

    /// What a camera read off a QR code: the text itself or a link.
    public init(scanned text: String) throws(OutOfBandError) {
        try self.init(text, otherwise: OutOfBandDecoder.decode(scanned:))
    }

    private init(_ text: String, otherwise decode: (String) throws(OutOfBandError) -> OutOfBandPayload) throws(OutOfBandError) {
        if let foreign = Self.foreign(text) { self = foreign } else { self = .authPhone(try decode(text)) }
    }

    /// A code of another format, by its scheme and host (both case-insensitive); nil for the rest.
    private static func foreign(_ text: String) -> ScannedCode? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let separator = trimmed.range(of: "://") else { return nil }
        let scheme = trimmed[..<separator.lowerBound].lowercased()
        let host = trimmed[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        switch (scheme, host) {
        case ("otpauth", "pipush"), ("pia", "pipush"), ("edumfa-push", "edumfa"): return .privacyIDEAPush(uri: trimmed)
        case ("pia", "container"): return .privacyIDEAContainer(uri: trimmed)
        case ("tiqrenroll", _): return .tiqrEnrolment(uri: trimmed)
        case ("tiqrauth", _): return .tiqrLogin(uri: trimmed)
        case ("otpauth", _): return .otpAccount(uri: trimmed)
        default: return nil
        }
    }
}
