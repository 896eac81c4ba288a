import Foundation
import WireJSON

/// privacyIDEA's JSON answers (`{"result": {"status", "value", "error"}, "detail": …}`) read as
/// the types below, for what the phone needs; its error text becomes the refusal's message.
public enum PrivacyIDEAAnswers {
    /// What every answer carries: whether privacyIDEA did what was asked, and if not, why.
    struct Status: Decodable {
        struct Result: Decodable {
            struct Refusal: Decodable { var message: String? }
            var status: Bool
            var error: Refusal?
        }
        var result: Result
    }

    /// An answer whose `result.value` is `Value`.
    struct Valued<Value: Decodable>: Decodable {
        struct Result: Decodable { var value: Value }
        var result: Result
    }

    /// The registration's answer: `detail.public_key`.
    struct Registration: Decodable {
        struct Detail: Decodable {
            var publicKey: String?
            enum CodingKeys: String, CodingKey { case publicKey = "public_key" }
        }
        var detail: Detail?
    }

    /// The registration's answer: privacyIDEA's public key for the new token.
    public static func serverKey(_ body: Data) throws(PrivacyIDEAError) -> PrivacyIDEAServerKey {
        try checkStatus(body)
        guard let key = try? WireJSON.decoder().decode(Registration.self, from: body).detail?.publicKey, !key.isEmpty else {
            throw .answer("privacyIDEA's registration answer carries no public key")
        }
        return try PrivacyIDEAServerKey(key)
    }

    /// A poll's answer: the open challenges' fields, in the order privacyIDEA made them, each to
    /// be read by `PushChallenge`.
    public static func challenges(_ body: Data) throws(PrivacyIDEAError) -> [[String: PushChallenge.Field]] {
        try checkStatus(body)
        do { return try WireJSON.decoder().decode(Valued<[[String: PushChallenge.Field]]>.self, from: body).result.value } catch {
            throw .answer("privacyIDEA's poll answer is not a list of challenges: \(WireJSON.describe(error))")
        }
    }

    /// What privacyIDEA's `push_code_to_phone` gives the phone once it accepted: the code the
    /// user types into the login page, and the words to show above it.
    public struct DisplayCode: Sendable, Equatable {
        public var code: String
        public var message: String?

        public init(code: String, message: String?) {
            self.code = code
            self.message = message
        }
    }

    /// An accepted answer's display code (`detail.display_code`), where privacyIDEA's
    /// `push_code_to_phone` made one; nil otherwise.
    public static func displayCode(_ body: Data) -> DisplayCode? {
        struct Answer: Decodable {
            struct Detail: Decodable {
                var displayCode: String?
                var message: String?
                enum CodingKeys: String, CodingKey {
                    case displayCode = "display_code"
                    case message
                }
            }
            var detail: Detail?
        }
        guard let detail = (try? WireJSON.decoder().decode(Answer.self, from: body))?.detail, let code = detail.displayCode,
            (1...16).contains(code.count), code.allSatisfy(\.isASCII)
        else { return nil }
        return DisplayCode(code: code, message: detail.message.map { String($0.prefix(200)) })
    }

    /// An answer's or an FCM token update's outcome: privacyIDEA says `value: true` when it
    /// matched an open challenge and its signature.
    public static func accepted(_ body: Data) throws(PrivacyIDEAError) -> Bool {
        try checkStatus(body)
        return (try? WireJSON.decoder().decode(Valued<Bool>.self, from: body).result.value) ?? false
    }

    /// Refuses an answer that is not privacyIDEA's JSON, or whose `result.status` is false, with
    /// privacyIDEA's own error as the reason.
    public static func checkStatus(_ body: Data) throws(PrivacyIDEAError) {
        guard let result = try? WireJSON.decoder().decode(Status.self, from: body).result else {
            throw .answer("privacyIDEA's answer is not its JSON")
        }
        guard result.status else {
            let message = result.error?.message.map { String($0.prefix(300)) } ?? "no reason given"
            throw .answer("privacyIDEA refused: \(message)")
        }
    }
}

/// The container endpoints' answers.
extension PrivacyIDEAAnswers {
    /// `/container/challenge`'s nonce and time.
    public static func containerChallenge(_ body: Data) throws(PrivacyIDEAError) -> ContainerRequests.Challenge {
        try checkStatus(body)
        do { return try WireJSON.decoder().decode(Valued<ContainerRequests.Challenge>.self, from: body).result.value } catch {
            throw .answer("privacyIDEA's challenge carries no nonce and time: \(WireJSON.describe(error))")
        }
    }

    /// `/container/rollover`'s new registration code (`container_url.value`).
    public static func containerCode(_ body: Data) throws(PrivacyIDEAError) -> String {
        struct Rollover: Decodable {
            struct Code: Decodable { var value: String }
            var containerURL: Code
            enum CodingKeys: String, CodingKey { case containerURL = "container_url" }
        }
        try checkStatus(body)
        do { return try WireJSON.decoder().decode(Valued<Rollover>.self, from: body).result.value.containerURL.value } catch {
            throw .answer("privacyIDEA's rollover answer carries no registration code: \(WireJSON.describe(error))")
        }
    }

    /// `/container/register/finalize` and the other answers that say `{"success": true}`.
    public static func succeeded(_ body: Data) throws(PrivacyIDEAError) -> Bool {
        struct Success: Decodable { var success: Bool }
        try checkStatus(body)
        return (try? WireJSON.decoder().decode(Valued<Success>.self, from: body).result.value.success) ?? false
    }

    /// `/container/synchronize`'s encrypted answer.
    public static func sealedContainer(_ body: Data) throws(PrivacyIDEAError) -> SealedContainerAnswer {
        struct Sealed: Decodable {
            struct Parameters: Decodable {
                var algorithm: String?
                var mode: String
                var initVector: String
                var tag: String
                enum CodingKeys: String, CodingKey {
                    case algorithm, mode, tag
                    case initVector = "init_vector"
                }
            }
            var publicServerKey: String
            var encryptionAlgorithm: String
            var encryptionParams: Parameters
            var containerDictServer: String
            enum CodingKeys: String, CodingKey {
                case publicServerKey = "public_server_key"
                case encryptionAlgorithm = "encryption_algorithm"
                case encryptionParams = "encryption_params"
                case containerDictServer = "container_dict_server"
            }
        }
        try checkStatus(body)
        let sealed: Sealed
        do { sealed = try WireJSON.decoder().decode(Valued<Sealed>.self, from: body).result.value } catch {
            throw .answer("privacyIDEA's synchronisation answer is not encrypted as its container protocol says: \(WireJSON.describe(error))")
        }
        return SealedContainerAnswer(
            serverKey: sealed.publicServerKey, algorithm: sealed.encryptionAlgorithm, mode: sealed.encryptionParams.mode,
            initVector: sealed.encryptionParams.initVector, tag: sealed.encryptionParams.tag, cipher: sealed.containerDictServer)
    }
}
