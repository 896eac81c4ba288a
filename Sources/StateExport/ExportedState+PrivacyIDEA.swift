import Foundation

extension ExportedState {
    /// A privacyIDEA push token the phone enrolled (docs/privacyidea.md): enough for privacyIDEA,
    /// which keeps its side, to go on sending it challenges. Its RSA key is a secret
    /// (`PhoneSecrets.privacyIDEATokenKeys`).
    public struct PrivacyIDEAToken: Codable, Sendable, Equatable {
        public var serial: String
        public var label: String
        public var issuer: String
        /// Where the phone answers, and the server it was enrolled with (`origin`).
        public var url: String
        public var origin: String
        public var sslVerify: Bool
        public var pollOnly: Bool
        public var requiresUnlock: Bool
        /// The one factor privacyIDEA's `app_force_unlock` allows (`PIN` or `BIOMETRIC`); absent: either.
        public var unlockFactor: String?
        /// privacyIDEA's public key, as privacyIDEA gave it at enrolment.
        public var serverKey: String
        /// The FCM token privacyIDEA knows for this token.
        public var fcmToken: String
        public var createdAt: Date

        public init(
            serial: String, label: String, issuer: String, url: String, origin: String, sslVerify: Bool, pollOnly: Bool,
            requiresUnlock: Bool, unlockFactor: String? = nil, serverKey: String, fcmToken: String, createdAt: Date
        ) {
            self.serial = serial
            self.label = label
            self.issuer = issuer
            self.url = url
            self.origin = origin
            self.sslVerify = sslVerify
            self.pollOnly = pollOnly
            self.requiresUnlock = requiresUnlock
            self.unlockFactor = unlockFactor
            self.serverKey = serverKey
            self.fcmToken = fcmToken
            self.createdAt = createdAt
        }
    }

    /// A privacyIDEA server the phone's user accepted: it is not asked about again.
    public struct PrivacyIDEAServer: Codable, Sendable, Equatable {
        public var origin: String
        public var acceptedAt: Date

        public init(origin: String, acceptedAt: Date) {
            self.origin = origin
            self.acceptedAt = acceptedAt
        }
    }

    /// A privacyIDEA smartphone container the phone registered (docs/privacyidea.md#containers):
    /// enough for privacyIDEA, which keeps its side, to go on synchronising it. Its P-384 key is a
    /// secret (`PhoneSecrets.privacyIDEAContainerKeys`).
    public struct PrivacyIDEAContainer: Codable, Sendable, Equatable {
        /// A token the container holds: a push token of the phone by its serial, or an OTP
        /// account of the phone (`otpAccountId`).
        public struct Token: Codable, Sendable, Equatable {
            public var serial: String
            /// `push`, `hotp` or `totp`.
            public var tokentype: String
            public var otpAccountId: String?

            public init(serial: String, tokentype: String, otpAccountId: String?) {
                self.serial = serial
                self.tokentype = tokentype
                self.otpAccountId = otpAccountId
            }
        }

        public var serial: String
        public var issuer: String
        /// privacyIDEA's base URL, on the server `origin`.
        public var serverURL: String
        public var origin: String
        public var sslVerify: Bool
        public var registeredAt: Date
        public var syncedAt: Date?
        public var tokens: [Token]

        public init(
            serial: String, issuer: String, serverURL: String, origin: String, sslVerify: Bool, registeredAt: Date, syncedAt: Date?,
            tokens: [Token]
        ) {
            self.serial = serial
            self.issuer = issuer
            self.serverURL = serverURL
            self.origin = origin
            self.sslVerify = sslVerify
            self.registeredAt = registeredAt
            self.syncedAt = syncedAt
            self.tokens = tokens
        }
    }

    /// A tiqr identity the phone enrolled (docs/privacyidea.md#tiqr): enough to answer its
    /// service's logins again. Its OCRA secret is a secret (`PhoneSecrets.tiqrSecrets`, by `key`).
    public struct TiqrIdentity: Codable, Sendable, Equatable {
        public var serviceIdentifier: String
        public var identity: String
        public var identityName: String
        public var serviceName: String
        /// privacyIDEA's serial of the token, where the enrolment code named it.
        public var serial: String?
        /// Where logins are answered, and the server the user trusted at enrolment (`origin`).
        public var authenticationURL: String
        public var origin: String
        public var ocraSuite: String
        public var enrolledAt: Date

        /// How its secret is found: the identity at its service, as a login code names them.
        public var key: String { "\(identity)@\(serviceIdentifier)" }

        public init(
            serviceIdentifier: String, identity: String, identityName: String, serviceName: String, serial: String?,
            authenticationURL: String, origin: String, ocraSuite: String, enrolledAt: Date
        ) {
            self.serviceIdentifier = serviceIdentifier
            self.identity = identity
            self.identityName = identityName
            self.serviceName = serviceName
            self.serial = serial
            self.authenticationURL = authenticationURL
            self.origin = origin
            self.ocraSuite = ocraSuite
            self.enrolledAt = enrolledAt
        }
    }

    /// The OCRA secret of a tiqr identity the state names (checked when the state was read).
    public func secret(ofTiqrIdentity key: String, phone id: String) throws(StateExportError) -> Data {
        guard let found = secrets.phones[id]?.tiqrSecrets?[key] else { throw .invalid("phone \(id)'s tiqr identity \(key) has no secret") }
        return found
    }

    /// The P-384 key (its raw scalar) of a container the state names (checked when the state was read).
    public func key(ofPrivacyIDEAContainer serial: String, phone id: String) throws(StateExportError) -> Data {
        guard let found = secrets.phones[id]?.privacyIDEAContainerKeys?[serial] else {
            throw .invalid("phone \(id)'s privacyIDEA container \(serial) has no key")
        }
        return found
    }

    /// The RSA key (PKCS #8 DER) of a token the state names (checked when the state was read).
    public func key(ofPrivacyIDEAToken serial: String, phone id: String) throws(StateExportError) -> Data {
        guard let found = secrets.phones[id]?.privacyIDEATokenKeys?[serial] else {
            throw .invalid("phone \(id)'s privacyIDEA token \(serial) has no key")
        }
        return found
    }
}
