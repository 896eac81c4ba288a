import Crypto
import Foundation
import Testing

@testable import PrivacyIDEA

/// privacyIDEA's container code as `create_container_registration_url` writes it, the requests
/// signed as `validate_challenge` checks them, and a synchronisation's answer opened.
struct ContainerTests {
    static let issued = Date(timeIntervalSince1970: 1_734_688_420.158319)
    static let text =
        "pia://container/SMPH0006D5BC?issuer=privacyIDEA&ttl=10&nonce=c238392af49250804c25bbd7d86408839e91fe97"
        + "&time=2024-12-20T09%3A53%3A40.158319%2B00%3A00&url=http%3A//127.0.0.1%3A5001/&serial=SMPH0006D5BC"
        + "&key_algorithm=secp384r1&hash_algorithm=SHA256&ssl_verify=False&passphrase=&send_passphrase=False"
    static let device = ContainerRequests.Device(brand: "AuthPhone", model: "Pixel of QA")

    @Test func privacyIDEAsCodeIsRead() throws {
        let registration = try ContainerRegistration(text: Self.text, now: Self.issued)
        #expect(registration.serial == "SMPH0006D5BC")
        #expect(registration.nonce == "c238392af49250804c25bbd7d86408839e91fe97")
        #expect(registration.time == "2024-12-20T09:53:40.158319+00:00")
        #expect(registration.serverURL.absoluteString == "http://127.0.0.1:5001/")
        #expect(registration.sslVerify == false)
        #expect(registration.passphrasePrompt == nil)
        #expect(abs(registration.expiresAt.timeIntervalSince(Self.issued) - 600) < 0.001)
    }

    @Test func aPassphraseIsAskedForWhereTheCodeSaysSo() throws {
        let prompt = try ContainerRegistration(
            text: Self.text.replacingOccurrences(of: "&passphrase=&", with: "&passphrase=Your%20PIN%20letter&"), now: Self.issued)
        #expect(prompt.passphrasePrompt == "Your PIN letter")
        #expect(!prompt.sendsPassphrase)
        let userStore = try ContainerRegistration(
            text: Self.text.replacingOccurrences(of: "send_passphrase=False", with: "send_passphrase=True"), now: Self.issued)
        #expect(userStore.sendsPassphrase)
        #expect(userStore.passphrasePrompt == "Please enter the passphrase of your user store.")
    }

    @Test(arguments: [
        (
            "key_algorithm=secp384r1", "key_algorithm=secp256r1", "INVALID_CONTAINER_CODE",
            "the key algorithm 'secp256r1' is not supported (only secp384r1)"
        ),
        ("hash_algorithm=SHA256", "hash_algorithm=SHA1", "INVALID_CONTAINER_CODE", "the hash algorithm 'SHA1' is not supported (only SHA256)"),
        ("&nonce=c238392af49250804c25bbd7d86408839e91fe97", "", "INVALID_CONTAINER_CODE", "the parameter 'nonce' is missing"),
        ("time=2024-12-20T09", "time=yesterday", "INVALID_CONTAINER_CODE", "the parameter 'time' is not an ISO 8601 time with its offset"),
        (
            "url=http%3A//127.0.0.1%3A5001/", "url=ftp%3A//127.0.0.1/", "INVALID_CONTAINER_CODE",
            "the parameter 'url' must be an http(s) URL with a host"
        ),
        ("pia://container/", "pia://pipush/", "INVALID_CONTAINER_CODE", "a privacyIDEA container code starts with pia://container/"),
        (
            "&serial=SMPH0006D5BC", "&serial=SMPH|1", "INVALID_CONTAINER_CODE",
            "the serial must be 1 to 128 printable ASCII characters without spaces or '|'"
        ),
    ])
    func aWrongCodeIsRefused(_ part: String, _ replacement: String, _ code: String, _ message: String) {
        let text = Self.text.replacingOccurrences(of: part, with: replacement)
        #expect(throws: PrivacyIDEAError(code: code, message: message)) { try ContainerRegistration(text: text, now: Self.issued) }
    }

    @Test func anExpiredCodeIsRefused() {
        let error = #expect(throws: PrivacyIDEAError.self) { try ContainerRegistration(text: Self.text, now: Self.issued.addingTimeInterval(601)) }
        #expect(error?.code == "CONTAINER_CODE_EXPIRED")
    }

    @Test func eachEndpointHangsOffTheServersURLOnce() {
        let server = URL(string: "https://pi.example/")!
        #expect(ContainerEndpoint.finalize.url(on: server) == "https://pi.example/container/register/finalize")
        #expect(ContainerEndpoint.synchronize.url(on: URL(string: "https://pi.example/pi")!) == "https://pi.example/pi/container/synchronize")
        #expect(
            ContainerEndpoint.challenge.url(on: URL(string: "https://pi.example/container/challenge")!) == "https://pi.example/container/challenge")
    }

    /// The finalize's signature holds for the registration's challenge, the device and the
    /// passphrase, under the public key it sends, over SHA-256.
    @Test func theFinalizeIsSignedAsPrivacyIDEAChecksIt() throws {
        let registration = try ContainerRegistration(text: Self.text, now: Self.issued)
        let key = ContainerKey.generate()
        let fields = Dictionary(
            uniqueKeysWithValues: try ContainerRequests.finalize(registration, key: key, device: Self.device, passphrase: "letter 7"))
        #expect(fields["passphrase"] == nil, "a passphrase privacyIDEA set itself is signed, not sent")
        #expect(fields["scope"] == "http://127.0.0.1:5001/container/register/finalize")
        let message =
            "c238392af49250804c25bbd7d86408839e91fe97|2024-12-20T09:53:40.158319+00:00|SMPH0006D5BC|"
            + "http://127.0.0.1:5001/container/register/finalize|AuthPhone|Pixel of QA|letter 7"
        let publicKey = try P384.Signing.PublicKey(pemRepresentation: try #require(fields["public_client_key"]))
        #expect(publicKey.isValidSignature(try Self.signature(fields), for: SHA256.hash(data: Data(message.utf8))))
    }

    @Test func theSynchronisationSignsItsKeyAndTheTokensItHolds() throws {
        let key = ContainerKey.generate()
        let answerKey = ContainerSyncKey()
        let fields = Dictionary(
            uniqueKeysWithValues: try ContainerRequests.synchronize(
                serial: "SMPH1", on: URL(string: "http://pi.example")!, challenge: .init(nonce: "n1", time: "t1"),
                tokens: [.init(serial: "HOTP1", tokentype: "hotp")], key: key, answerKey: answerKey, device: Self.device))
        let list = try #require(fields["container_dict_client"])
        let held = try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String: Any]
        #expect(held?["serial"] as? String == "SMPH1")
        #expect((held?["tokens"] as? [[String: String]]) == [["serial": "HOTP1", "tokentype": "hotp"]])
        let message = "n1|t1|SMPH1|http://pi.example/container/synchronize|AuthPhone|Pixel of QA|\(answerKey.publicKeyText)|\(list)"
        #expect(key.key.publicKey.isValidSignature(try Self.signature(fields), for: SHA256.hash(data: Data(message.utf8))))
    }

    static func signature(_ fields: [String: String]) throws -> P384.Signing.ECDSASignature {
        let text = try #require(fields["signature"])
        return try P384.Signing.ECDSASignature(derRepresentation: try #require(Base64URLText.decode(text)))
    }

    @Test func aRolloverIsSignedForItsOwnScope() throws {
        let key = ContainerKey.generate()
        let fields = try ContainerRequests.signed(
            .rollover, serial: "SMPH1", on: URL(string: "http://pi.example")!, challenge: .init(nonce: "n2", time: "t2"), key: key,
            device: Self.device)
        #expect(fields.map(\.name) == ["container_serial", "device_brand", "device_model", "signature"])
        let message = "n2|t2|SMPH1|http://pi.example/container/rollover|AuthPhone|Pixel of QA"
        let signature = try Self.signature(Dictionary(uniqueKeysWithValues: fields))
        #expect(key.key.publicKey.isValidSignature(signature, for: SHA256.hash(data: Data(message.utf8))))
        #expect(
            !key.key.publicKey.isValidSignature(
                signature, for: SHA256.hash(data: Data(message.replacingOccurrences(of: "rollover", with: "synchronize").utf8))))
    }

    /// privacyIDEA's `encrypt_dict`: the bare X25519 secret as the AES key, a 16-byte vector.
    static func sealed(_ text: String, to answerKey: ContainerSyncKey) throws -> SealedContainerAnswer {
        let server = Curve25519.KeyAgreement.PrivateKey()
        let secret = try server.sharedSecretFromKeyAgreement(with: answerKey.key.publicKey).withUnsafeBytes { Data($0) }
        let box = try AES.GCM.seal(Data(text.utf8), using: SymmetricKey(data: secret), nonce: .init(data: Data(repeating: 7, count: 16)))
        return SealedContainerAnswer(
            serverKey: Base64URLText.encode(server.publicKey.rawRepresentation), algorithm: "AES", mode: "GCM",
            initVector: Base64URLText.encode(Data(repeating: 7, count: 16)), tag: Base64URLText.encode(box.tag),
            cipher: Base64URLText.encode(box.ciphertext))
    }

    @Test func theAnswerOpensOnlyWithItsOwnKey() throws {
        let answerKey = ContainerSyncKey()
        let sealed = try Self.sealed(#"{"container": {"serial": "SMPH1"}}"#, to: answerKey)
        #expect(String(decoding: try answerKey.open(sealed), as: UTF8.self) == #"{"container": {"serial": "SMPH1"}}"#)
        let error = #expect(throws: PrivacyIDEAError.self) { try ContainerSyncKey().open(sealed) }
        #expect(error == PrivacyIDEAError(code: "CONTAINER_SYNC_REFUSED", message: "the answer does not decrypt with this synchronisation's key"))
        var tampered = sealed
        tampered.tag = Base64URLText.encode(Data(repeating: 0, count: 16))
        #expect(throws: PrivacyIDEAError.self) { try answerKey.open(tampered) }
    }

    @Test func theAnswerSaysWhatToAddKeepAndRemove() throws {
        let answer = #"""
            {"container": {"serial": "SMPH1", "type": "smartphone"}, "tokens": {
              "add": ["otpauth://totp/TOTP2?secret=AAAA&serial=TOTP2", "otpauth://hotp/HOTP1?secret=BBBB&counter=1&serial=HOTP1"],
              "update": [{"serial": "PIPU1", "tokentype": "push"}]}}
            """#
        let sync = try ContainerSync(opened: Data(answer.utf8), serial: "SMPH1", held: ["PIPU1", "HOTP1", "TOTP9"])
        #expect(sync.add.count == 2)
        #expect(sync.keep == ["PIPU1"])
        #expect(sync.remove == ["TOTP9"], "a token added again (a rollover's new secret) is replaced, not removed")
        let error = #expect(throws: PrivacyIDEAError.self) { try ContainerSync(opened: Data(answer.utf8), serial: "SMPH2", held: []) }
        #expect(error?.message == "the answer is for the container SMPH1, not SMPH2")
    }
}
