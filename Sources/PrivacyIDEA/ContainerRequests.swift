import Foundation
import WireJSON

/// The form fields the phone sends to privacyIDEA's container endpoints (`api/container.py`),
/// each signed where privacyIDEA checks a signature (`validate_challenge` in its
/// `lib/containerclass.py`): `nonce|time|serial|scope`, then the device's brand and model, the
/// passphrase, the encryption key and the container's token list, each where it is given.
/// Pure: the caller sends them.
public enum ContainerRequests {
    public typealias Fields = PushTokenRequests.Fields

    /// What privacyIDEA records as the container's device.
    public struct Device: Sendable, Equatable {
        public var brand: String
        public var model: String

        public init(brand: String, model: String) {
            self.brand = brand
            self.model = model
        }
    }

    /// A challenge privacyIDEA gave: the registration's (from its code) or `/container/challenge`'s.
    public struct Challenge: Sendable, Equatable, Decodable {
        public var nonce: String
        public var time: String

        public init(nonce: String, time: String) {
            self.nonce = nonce
            self.time = time
        }

        enum CodingKeys: String, CodingKey {
            case nonce
            case time = "time_stamp"
        }
    }

    /// A token the phone holds in the container, as the synchronisation lists it.
    public struct HeldToken: Sendable, Equatable, Encodable {
        public var serial: String
        public var tokentype: String

        public init(serial: String, tokentype: String) {
            self.serial = serial
            self.tokentype = tokentype
        }
    }

    /// The registration's second step: the phone's public key, the registration's challenge
    /// signed with it. A passphrase is signed always, and sent too where the code says so.
    public static func finalize(
        _ registration: ContainerRegistration, key: ContainerKey, device: Device, passphrase: String?
    ) throws(PrivacyIDEAError) -> Fields {
        let scope = ContainerEndpoint.finalize.url(on: registration.serverURL)
        let signed = message(
            Challenge(nonce: registration.nonce, time: registration.time), serial: registration.serial, scope: scope, device: device,
            then: [passphrase])
        var fields: Fields = [
            ("container_serial", registration.serial), ("public_client_key", key.publicKeyPEM), ("scope", scope),
            ("device_brand", device.brand), ("device_model", device.model),
        ]
        if registration.sendsPassphrase, let passphrase { fields.append(("passphrase", passphrase)) }
        fields.append(("signature", try key.sign(signed)))
        return fields
    }

    /// Asks for a challenge bound to `endpoint`.
    public static func challenge(serial: String, for endpoint: ContainerEndpoint, on server: URL) -> Fields {
        [("container_serial", serial), ("scope", endpoint.url(on: server))]
    }

    /// The synchronisation: the tokens the phone holds and a key for the answer's encryption,
    /// signed after the challenge.
    public static func synchronize(
        serial: String, on server: URL, challenge: Challenge, tokens: [HeldToken], key: ContainerKey, answerKey: ContainerSyncKey,
        device: Device
    ) throws(PrivacyIDEAError) -> Fields {
        let held = ClientContainer(serial: serial, tokens: tokens)
        let list = String(decoding: (try? WireJSON.encoder().encode(held)) ?? Data("{}".utf8), as: UTF8.self)
        return try signed(
            .synchronize, serial: serial, on: server, challenge: challenge, key: key, device: device,
            with: [("public_enc_key_client", answerKey.publicKeyText), ("container_dict_client", list)])
    }

    /// A request for `endpoint` (a rollover, the phone's unregistering, a synchronisation) signed
    /// after its challenge; `with`'s fields are signed too, in their order.
    public static func signed(
        _ endpoint: ContainerEndpoint, serial: String, on server: URL, challenge: Challenge, key: ContainerKey, device: Device,
        with fields: Fields = []
    ) throws(PrivacyIDEAError) -> Fields {
        let signed = message(challenge, serial: serial, scope: endpoint.url(on: server), device: device, then: fields.map(\.value))
        return [("container_serial", serial)] + fields + [
            ("device_brand", device.brand), ("device_model", device.model), ("signature", try key.sign(signed)),
        ]
    }

    /// `nonce|time|serial|scope|brand|model`, then each part given; privacyIDEA leaves out an empty one.
    static func message(_ challenge: Challenge, serial: String, scope: String, device: Device, then parts: [String?]) -> String {
        ([challenge.nonce, challenge.time, serial, scope, device.brand, device.model] + parts.compactMap { $0 }).filter { !$0.isEmpty }.joined(
            separator: "|")
    }

    /// `container_dict_client`: what the phone holds.
    struct ClientContainer: Encodable {
        var serial: String
        var type = "smartphone"
        var tokens: [HeldToken]
    }
}
