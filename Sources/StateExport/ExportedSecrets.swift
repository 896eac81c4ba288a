import Foundation
import SodiumKit

extension ExportedState {
    /// Everything in an export that proves a device or guards a PIN: sealed with the passphrase,
    /// never in clear. Keyed by the id of what it belongs to, so the clear part names each thing
    /// once and its secrets are found by that name.
    public struct Secrets: Codable, Sendable, Equatable {
        /// By phone id.
        public var phones: [String: PhoneSecrets]
        /// The phones' accounts, by account id.
        public var accounts: [String: AccountSecrets]
        /// The backend's signing key (libsodium's 64 bytes): the phones pinned its public half at
        /// enrolment, so a server that loads them must sign with it.
        public var serverSecretKey: Data
        /// The backend's offline OTP keys, by account id.
        public var backendOTPKeys: [String: Data]
        /// The PINs' public keys at the Second Factor Server, by device id: with a phone's PIN
        /// salt, enough to try every PIN offline, so sealed as a PIN verifier.
        public var pinPublicKeys: [String: Data]
        /// The phones' OTP accounts' keys, by OTP account id; absent when no phone has one.
        public var otpSecrets: [String: Data]?

        public init(
            phones: [String: PhoneSecrets], accounts: [String: AccountSecrets], serverSecretKey: Data, backendOTPKeys: [String: Data],
            pinPublicKeys: [String: Data], otpSecrets: [String: Data] = [:]
        ) {
            self.phones = phones
            self.accounts = accounts
            self.serverSecretKey = serverSecretKey
            self.backendOTPKeys = backendOTPKeys
            self.pinPublicKeys = pinPublicKeys
            self.otpSecrets = otpSecrets.isEmpty ? nil : otpSecrets
        }
    }

    public struct PhoneSecrets: Codable, Sendable, Equatable {
        /// The device key's 32-byte seed.
        public var deviceKeySeed: Data
        /// The PIN key derivation's salt; nil while no PIN is set.
        public var pinSalt: Data?
        public var biometricSecretKey: Data?
        /// The public half of the key the PIN derives, which unlocks privacyIDEA tokens: with the
        /// salt, enough to try every PIN offline. Nil until a PIN was accepted (and in older files).
        public var pinPublicKey: Data?
        /// The privacyIDEA tokens' RSA keys (PKCS #8 DER), by serial; absent when there are none.
        public var privacyIDEATokenKeys: [String: Data]?
        /// The privacyIDEA containers' P-384 keys (raw scalars), by serial; absent when there are none.
        public var privacyIDEAContainerKeys: [String: Data]?
        /// The tiqr identities' OCRA secrets, by `identity@service`; absent when there are none.
        public var tiqrSecrets: [String: Data]?

        public init(
            deviceKeySeed: Data, pinSalt: Data?, biometricSecretKey: Data?, pinPublicKey: Data? = nil,
            privacyIDEATokenKeys: [String: Data] = [:], privacyIDEAContainerKeys: [String: Data] = [:], tiqrSecrets: [String: Data] = [:]
        ) {
            self.deviceKeySeed = deviceKeySeed
            self.pinSalt = pinSalt
            self.biometricSecretKey = biometricSecretKey
            self.pinPublicKey = pinPublicKey
            self.privacyIDEATokenKeys = privacyIDEATokenKeys.isEmpty ? nil : privacyIDEATokenKeys
            self.privacyIDEAContainerKeys = privacyIDEAContainerKeys.isEmpty ? nil : privacyIDEAContainerKeys
            self.tiqrSecrets = tiqrSecrets.isEmpty ? nil : tiqrSecrets
        }
    }

    public struct AccountSecrets: Codable, Sendable, Equatable {
        /// The account key (libsodium's 64 bytes).
        public var secretKey: Data
        /// The offline OTP key agreed with the server at enrolment.
        public var otpKey: Data?

        public init(secretKey: Data, otpKey: Data?) {
            self.secretKey = secretKey
            self.otpKey = otpKey
        }
    }

    /// The secrets of a phone the state names (checked when the state was read).
    public func secrets(ofPhone id: String) throws(StateExportError) -> PhoneSecrets {
        guard let found = secrets.phones[id] else { throw .invalid("phone \(id) has no secrets") }
        return found
    }

    public func secrets(ofAccount id: String) throws(StateExportError) -> AccountSecrets {
        guard let found = secrets.accounts[id] else { throw .invalid("account \(id) has no secrets") }
        return found
    }

    public func secret(ofOTPAccount id: String) throws(StateExportError) -> Data {
        guard let found = secrets.otpSecrets?[id] else { throw .invalid("OTP account \(id) has no secret") }
        return found
    }

    /// Refuses a state whose parts do not fit together: ids twice, a thing without its secrets
    /// or secrets of nothing, a key of the wrong length. Loading it would fail half-way or
    /// leave a phone that cannot log in; refused here, it changes nothing.
    func validate() throws(StateExportError) {
        try Self.unique("phone id", phones.map(\.id))
        try Self.unique("device id", phones.map(\.deviceId))
        try Self.unique("push token", phones.map(\.fcmToken))
        let accounts = phones.flatMap(\.accounts)
        try Self.unique("account id", accounts.map(\.id))
        try Self.unique("backend account id", backend.accounts.map(\.id))
        try Self.unique("backend OTP reference", backend.accounts.compactMap(\.otpReference).map { String($0) })
        try Self.unique("backend device id", backend.devices.map(\.deviceId))
        try Self.unique("second factor device id", backend.secondFactors.map(\.deviceId))
        try Self.unique("server flag", backend.serverFlags.map(\.name))
        let otpAccounts = phones.flatMap { $0.otpAccounts ?? [] }
        try Self.unique("OTP account id", otpAccounts.map(\.id))
        try Self.same("phones", Set(phones.map(\.id)), secrets.phones.keys)
        try Self.same("accounts", Set(accounts.map(\.id)), secrets.accounts.keys)
        try Self.same("backend OTP keys", Set(backend.accounts.filter { $0.otpReference != nil }.map(\.id)), secrets.backendOTPKeys.keys)
        try Self.same("PIN keys", Set(backend.secondFactors.map(\.deviceId)), secrets.pinPublicKeys.keys)
        try Self.same("OTP secrets", Set(otpAccounts.map(\.id)), (secrets.otpSecrets ?? [:]).keys)
        for phone in phones {
            let serials = (phone.privacyIDEATokens ?? []).map(\.serial)
            try Self.unique("privacyIDEA serial of phone \(phone.id)", serials)
            try Self.unique("privacyIDEA server of phone \(phone.id)", (phone.privacyIDEAServers ?? []).map(\.origin))
            try Self.same("privacyIDEA keys of phone \(phone.id)", Set(serials), (secrets.phones[phone.id]?.privacyIDEATokenKeys ?? [:]).keys)
            let containers = phone.privacyIDEAContainers ?? []
            try Self.unique("privacyIDEA container of phone \(phone.id)", containers.map(\.serial))
            try Self.same(
                "privacyIDEA container keys of phone \(phone.id)", Set(containers.map(\.serial)),
                (secrets.phones[phone.id]?.privacyIDEAContainerKeys ?? [:]).keys)
            let identities = (phone.tiqrIdentities ?? []).map(\.key)
            try Self.unique("tiqr identity of phone \(phone.id)", identities)
            try Self.same("tiqr secrets of phone \(phone.id)", Set(identities), (secrets.phones[phone.id]?.tiqrSecrets ?? [:]).keys)
            let held = containers.flatMap(\.tokens)
            try Self.unique("privacyIDEA container token of phone \(phone.id)", held.map(\.serial))
            let accountIds = Set((phone.otpAccounts ?? []).map(\.id))
            for token in held {
                guard (token.tokentype == "push") == (token.otpAccountId == nil), ["push", "hotp", "totp"].contains(token.tokentype) else {
                    throw .invalid("phone \(phone.id)'s container token \(token.serial) is not a push token or an OTP account with its id")
                }
                if let account = token.otpAccountId {
                    guard accountIds.contains(account) else {
                        throw .invalid("phone \(phone.id)'s container token \(token.serial) names no OTP account of it")
                    }
                } else {
                    guard serials.contains(token.serial) else {
                        throw .invalid("phone \(phone.id)'s container token \(token.serial) names no push token of it")
                    }
                }
            }
        }

        let seed = Ed25519.seedLength
        let secretKey = Ed25519.secretKeyLength
        let publicKey = Ed25519.publicKeyLength
        try Self.length("the server key", secrets.serverSecretKey, secretKey)
        for (id, phone) in secrets.phones {
            try Self.length("phone \(id)'s device key", phone.deviceKeySeed, seed)
            try Self.length("phone \(id)'s PIN salt", phone.pinSalt, PinKeyDerivation.saltLength)
            try Self.length("phone \(id)'s biometric key", phone.biometricSecretKey, secretKey)
            try Self.length("phone \(id)'s PIN key", phone.pinPublicKey, publicKey)
        }
        for (id, account) in secrets.accounts {
            try Self.length("account \(id)'s key", account.secretKey, secretKey)
            try Self.length("account \(id)'s OTP key", account.otpKey, KeyExchange.sharedKeyLength)
        }
        for account in accounts { try Self.length("account \(account.id)'s server key", account.serverPublicKey, publicKey) }
        for account in backend.accounts { try Self.length("backend account \(account.id)'s key", account.publicKey, publicKey) }
        for (id, key) in secrets.backendOTPKeys { try Self.length("backend account \(id)'s OTP key", key, KeyExchange.sharedKeyLength) }
        for (id, key) in secrets.pinPublicKeys { try Self.length("device \(id)'s PIN key", key, publicKey) }
        for factor in backend.secondFactors {
            try Self.length("device \(factor.deviceId)'s biometric key", factor.biometricPublicKey, publicKey)
            try Self.length("device \(factor.deviceId)'s device key", factor.devicePublicKey, publicKey)
        }
    }

    private static func unique(_ what: String, _ values: [String]) throws(StateExportError) {
        var seen = Set<String>()
        for value in values where !seen.insert(value).inserted { throw .invalid("the \(what) \(value) appears twice") }
    }

    private static func same<Value>(_ what: String, _ named: Set<String>, _ keyed: Dictionary<String, Value>.Keys) throws(StateExportError) {
        if let missing = named.subtracting(keyed).sorted().first { throw .invalid("the sealed \(what) lack \(missing)") }
        if let extra = Set(keyed).subtracting(named).sorted().first { throw .invalid("the sealed \(what) name \(extra), which the state does not") }
    }

    private static func length(_ what: String, _ bytes: Data?, _ expected: Int) throws(StateExportError) {
        if let bytes, bytes.count != expected { throw .invalid("\(what) is \(bytes.count) bytes, not \(expected)") }
    }
}
