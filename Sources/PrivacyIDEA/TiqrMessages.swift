import Foundation
import OTP

/// A tiqr service's metadata, as the enrolment code's URL answers it: who the service is, where
/// the phone enrols and answers, and the OCRA suite it answers with.
public struct TiqrMetadata: Sendable, Equatable {
    public var serviceIdentifier: String
    public var serviceName: String
    public var identity: String
    public var identityName: String
    public var enrollmentURL: URL
    public var authenticationURL: URL
    public var ocra: OCRA

    private struct Wire: Decodable {
        struct Service: Decodable {
            var displayName: String
            var identifier: String
            var authenticationUrl: String
            var enrollmentUrl: String
            var ocraSuite: String
        }
        struct Identity: Decodable {
            var identifier: String
            var displayName: String
        }
        var service: Service
        var identity: Identity
    }

    /// The metadata `data` a server answered with. Where the secret goes must be that server
    /// (`isTheServer`): the user trusted it, not where it might send the phone's secret. Logins
    /// may be answered elsewhere (privacyIDEA's `tiqr.authServer`): a response gives nothing away.
    public init(_ data: Data, isTheServer: (URL) -> Bool) throws(PrivacyIDEAError) {
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: data) } catch {
            throw .tiqrMetadata("the metadata is not tiqr's JSON with a service and an identity")
        }
        func url(_ text: String, _ name: String) throws(PrivacyIDEAError) -> URL {
            guard let url = URL(string: text), PushEnrolment.isServerURL(url) else { throw .tiqrMetadata("the \(name) is no http(s) URL") }
            return url
        }
        enrollmentURL = try url(wire.service.enrollmentUrl, "enrollmentUrl")
        guard isTheServer(enrollmentURL) else { throw .tiqrMetadata("the enrollmentUrl is at another server than the code's") }
        authenticationURL = try url(wire.service.authenticationUrl, "authenticationUrl")
        do { ocra = try OCRA(suite: wire.service.ocraSuite) } catch { throw .tiqrMetadata(error.message) }
        func text(_ value: String, _ name: String) throws(PrivacyIDEAError) -> String {
            try PushEnrolment.printable(value, name, limit: 256, refusal: PrivacyIDEAError.tiqrMetadata)
        }
        serviceIdentifier = try text(wire.service.identifier, "service identifier")
        serviceName = try text(wire.service.displayName, "service name")
        identity = try text(wire.identity.identifier, "identity")
        identityName = try text(wire.identity.displayName.trimmingCharacters(in: .whitespaces), "identity name")
        guard !serviceIdentifier.isEmpty, !identity.isEmpty else { throw .tiqrMetadata("the service or the identity has no identifier") }
    }
}

/// The tiqr app's requests, as forms, and what the server answers them with.
public enum TiqrRequests {
    /// The enrolment's confirmation: the secret the phone made, in hex, with what the app says of itself.
    public static func enrolment(secret: [UInt8]) -> PushTokenRequests.Fields {
        [
            ("secret", secret.map { String(format: "%02x", $0) }.joined()), ("language", "en"), ("operation", "register"),
            ("notificationType", "NONE"), ("version", "1"),
        ]
    }

    /// A login's answer: the OCRA response to the challenge's question under the identity's secret.
    public static func authentication(_ challenge: TiqrChallenge, response: String) -> PushTokenRequests.Fields {
        [
            ("sessionKey", challenge.sessionKey), ("userId", challenge.userId), ("response", response), ("language", "en"),
            ("operation", "login"),
        ]
    }

    /// What a tiqr server answers an enrolment or a login with (protocol 1, plain text).
    public enum Reply: Sendable, Equatable {
        case ok
        /// A wrong response: the tries left before the token locks, where the server says.
        case invalidResponse(triesLeft: Int?)
        /// No open login has that session: unknown, expired or answered.
        case invalidChallenge
        /// Anything else, as the server wrote it.
        case refused(String)

        public init(_ body: Data) {
            let text = String(decoding: body.prefix(512), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            switch text {
            case "OK": self = .ok
            case "INVALID_CHALLENGE": self = .invalidChallenge
            case _ where text.hasPrefix("INVALID_RESPONSE"): self = .invalidResponse(triesLeft: Int(text.split(separator: ":").last ?? ""))
            default: self = .refused(text)
            }
        }
    }
}
