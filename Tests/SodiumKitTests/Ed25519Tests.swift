import SodiumKit
import Testing

@Suite struct Ed25519Tests {
    // RFC 8032 §7.1, TEST 1: empty message.
    static let seed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    static let publicKey = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    static let signature = hex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")

    @Test func rfc8032Test1KnownAnswer() throws {
        let pair = try Ed25519.KeyPair(seed: Self.seed)
        #expect(pair.publicKey == Self.publicKey)
        #expect(pair.sign([UInt8]()) == Self.signature)
        #expect(Ed25519.verify(signature: Self.signature, message: [UInt8](), publicKey: Self.publicKey))
    }

    @Test func anyFlippedBitFailsVerification() {
        let message = Array("transfer 100 EUR".utf8)
        let pair = try! Ed25519.KeyPair.generate()
        let signature = pair.sign(message)
        #expect(Ed25519.verify(signature: signature, message: message, publicKey: pair.publicKey))
        for bit in 0..<(signature.count * 8) {
            var flipped = signature
            flipped[bit / 8] ^= 1 << (bit % 8)
            #expect(!Ed25519.verify(signature: flipped, message: message, publicKey: pair.publicKey), "bit \(bit)")
        }
        for bit in 0..<(message.count * 8) {
            var altered = message
            altered[bit / 8] ^= 1 << (bit % 8)
            #expect(!Ed25519.verify(signature: signature, message: altered, publicKey: pair.publicKey), "message bit \(bit)")
        }
    }

    @Test func wrongLengthsAreRefusedNotCrashed() {
        #expect(!Ed25519.verify(signature: [1, 2, 3], message: [UInt8](), publicKey: Self.publicKey))
        #expect(!Ed25519.verify(signature: Self.signature, message: [UInt8](), publicKey: [0]))
        #expect(throws: SodiumError.invalidKeyLength(expected: 64, got: 3)) { try Ed25519.KeyPair(secretKey: [1, 2, 3]) }
    }

    @Test func exportedSecretKeyRestoresTheSameKey() throws {
        let pair = try Ed25519.KeyPair.generate()
        let restored = try Ed25519.KeyPair(secretKey: pair.exportSecretKey())
        #expect(restored.publicKey == pair.publicKey)
        #expect(Ed25519.verify(signature: restored.sign([42]), message: [42], publicKey: pair.publicKey))
    }
}

@Suite struct PinKeyDerivationTests {
    let derivation = PinKeyDerivation(profile: .fast)
    let salt = [UInt8](repeating: 7, count: PinKeyDerivation.saltLength)

    @Test func samePinAndSaltGiveTheSameKey() throws {
        let a = try derivation.keyPair(pin: GuardedBytes(copying: Array("260418".utf8)), salt: salt)
        let b = try derivation.keyPair(pin: GuardedBytes(copying: Array("260418".utf8)), salt: salt)
        #expect(a.publicKey == b.publicKey)
    }

    @Test func anotherPinOrSaltGivesAnotherKey() throws {
        let base = try derivation.keyPair(pin: GuardedBytes(copying: Array("260418".utf8)), salt: salt)
        let otherPin = try derivation.keyPair(pin: GuardedBytes(copying: Array("260419".utf8)), salt: salt)
        let otherSalt = try derivation.keyPair(
            pin: GuardedBytes(copying: Array("260418".utf8)),
            salt: [UInt8](repeating: 8, count: PinKeyDerivation.saltLength))
        #expect(base.publicKey != otherPin.publicKey)
        #expect(base.publicKey != otherSalt.publicKey)
    }

    @Test func badParametersAreTypedErrors() throws {
        #expect(throws: SodiumError.invalidSaltLength(expected: 16, got: 3)) {
            try derivation.keyPair(pin: GuardedBytes(copying: [49]), salt: [1, 2, 3])
        }
        #expect(throws: SodiumError.self) { try PinKeyDerivation.Profile(name: "zero", opsLimit: 0, memLimit: 1 << 20) }
        #expect(throws: SodiumError.self) { try PinKeyDerivation.Profile(name: "tiny", opsLimit: 1, memLimit: 10) }
    }
}

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
