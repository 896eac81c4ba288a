import Foundation
import OTP

/// privacyIDEA's tiqr token (`lib/tokens/tiqrtoken.py`) as the tiqr app reads its codes: an
/// enrolment code names where the metadata is, a login code names the identity, the session and
/// the OCRA question (docs/privacyidea.md#tiqr).
public struct TiqrEnrolment: Sendable, Equatable {
    /// Where the service's metadata is: the code's text after `tiqrenroll://`, as the app reads it.
    public var metadataURL: URL
    /// privacyIDEA's serial of the token, from the metadata URL's query.
    public var serial: String?

    public static let scheme = "tiqrenroll"

    public init(text: String) throws(PrivacyIDEAError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Tiqr.maximumLength else { throw .tiqr("the tiqr code is longer than \(Tiqr.maximumLength) bytes") }
        let prefix = Self.scheme + "://"
        guard text.lowercased().hasPrefix(prefix) else { throw .tiqr("a tiqr enrolment code starts with \(prefix)") }
        guard let url = URL(string: String(text.dropFirst(prefix.count))), PushEnrolment.isServerURL(url) else {
            throw .tiqr("a tiqr enrolment code holds the http(s) URL of the service's metadata after \(prefix)")
        }
        metadataURL = url
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        serial = try query.first { $0.name == "serial" }?.value.map { value throws(PrivacyIDEAError) in
            try PushEnrolment.printable(value, "serial", limit: 128, refusal: PrivacyIDEAError.tiqr)
        }
    }
}

/// A tiqr login code: `tiqrauth://USERID@SERVICE/SESSIONKEY/QUESTION/SERVICENAME[/VERSION]`,
/// privacyIDEA's `transaction_id` as the session key and the OCRA question its challenge.
public struct TiqrChallenge: Sendable, Equatable {
    /// The identity the login is for (`login_realm` at privacyIDEA).
    public var userId: String
    /// The service's identifier, as its metadata gave it at enrolment.
    public var serviceIdentifier: String
    public var sessionKey: String
    public var question: String
    public var serviceName: String

    public static let scheme = "tiqrauth"

    public init(text: String) throws(PrivacyIDEAError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Tiqr.maximumLength else { throw .tiqr("the tiqr code is longer than \(Tiqr.maximumLength) bytes") }
        let prefix = Self.scheme + "://"
        guard text.lowercased().hasPrefix(prefix) else { throw .tiqr("a tiqr login code starts with \(prefix)") }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (4...5).contains(parts.count), let at = parts[0].lastIndex(of: "@") else {
            throw .tiqr("a tiqr login code is \(prefix)USER@SERVICE/SESSION/QUESTION/NAME")
        }
        func decoded(_ part: String, _ name: String, limit: Int = 256) throws(PrivacyIDEAError) -> String {
            guard let text = part.removingPercentEncoding, !text.isEmpty else { throw .tiqr("the code's \(name) is missing or badly encoded") }
            return try PushEnrolment.printable(text, name, limit: limit, refusal: PrivacyIDEAError.tiqr)
        }
        userId = try decoded(String(parts[0][..<at]), "user")
        serviceIdentifier = try decoded(String(parts[0][parts[0].index(after: at)...]), "service")
        sessionKey = try decoded(parts[1], "session", limit: 128)
        question = try decoded(parts[2], "question", limit: 64)
        serviceName = try decoded(parts[3], "service name")
    }
}

/// What tiqr's codes and answers share.
enum Tiqr {
    static let maximumLength = 4 * 1024
}

extension PrivacyIDEAError {
    static func tiqr(_ reason: String) -> Self { Self(code: "INVALID_TIQR_CODE", message: reason) }
    static func tiqrMetadata(_ reason: String) -> Self { Self(code: "INVALID_TIQR_METADATA", message: reason) }
}
