import AuthFlow
import BackendAPI
import Foundation
import GRDB
import Identifiers
import OTP
import PrivacyIDEA
import StateExport
import Storage

/// The phones as `authphone export` writes them and `import` (or `serve --seed`) loads them: the
/// rows turned into the export's shape and back, in one read and one write transaction.
extension PhoneStore {
    /// What the phones are in an export.
    public struct Exported: Sendable {
        public var phones: [ExportedState.Phone] = []
        /// By phone id.
        public var phoneSecrets: [String: ExportedState.PhoneSecrets] = [:]
        /// By account id.
        public var accountSecrets: [String: ExportedState.AccountSecrets] = [:]
        /// By OTP account id.
        public var otpSecrets: [String: Data] = [:]
    }

    /// A phone's rows: what an export is made from and an import writes.
    struct PhoneRows: Sendable {
        var phone: PhoneRecord
        var accounts: [AccountRecord] = []
        var otpAccounts: [OTPAccountRecord] = []
        var privacyIDEATokens: [PushTokenRecord] = []
        var privacyIDEAServers: [PrivacyIDEAOriginRecord] = []
        var containers: [ContainerRecord] = []
        var containerTokens: [ContainerTokenRecord] = []
        var tiqrIdentities: [TiqrIdentityRecord] = []
    }

    /// Every phone with its accounts, OTP accounts, privacyIDEA tokens, servers and containers and
    /// their secrets, oldest first. Answered privacyIDEA challenges stay behind: privacyIDEA itself
    /// refuses an answer to one it closed.
    public func exported() async throws(StateExportError) -> Exported {
        let rows: [PhoneRows]
        do {
            rows = try await database.readAll { sql in
                // all of a kind in one query, each phone's kept in their order
                func byPhone<Row: FetchableRecord & Sendable>(_ row: Row.Type, _ table: String, _ order: String, _ phone: KeyPath<Row, String>)
                    throws -> [String: [Row]]
                { Dictionary(grouping: try sql.fetchAll(row, "SELECT * FROM \(table) ORDER BY \(order)", []), by: { $0[keyPath: phone] }) }
                let accounts = try byPhone(AccountRecord.self, "account", "createdAt, id", \.phoneId)
                let otpAccounts = try byPhone(OTPAccountRecord.self, "otpAccount", "createdAt, id", \.phoneId)
                let tokens = try byPhone(PushTokenRecord.self, "privacyIDEAToken", "createdAt, serial", \.phoneId)
                let servers = try byPhone(PrivacyIDEAOriginRecord.self, "privacyIDEAOrigin", "acceptedAt, origin", \.phoneId)
                let containers = try byPhone(ContainerRecord.self, "privacyIDEAContainer", "registeredAt, serial", \.phoneId)
                let held = try byPhone(ContainerTokenRecord.self, "privacyIDEAContainerToken", "container, serial", \.phoneId)
                let identities = try byPhone(TiqrIdentityRecord.self, "tiqrIdentity", "enrolledAt, identity", \.phoneId)
                return try sql.fetchAll(PhoneRecord.self, "SELECT * FROM phone ORDER BY createdAt, id", []).map {
                    PhoneRows(
                        phone: $0, accounts: accounts[$0.id] ?? [], otpAccounts: otpAccounts[$0.id] ?? [],
                        privacyIDEATokens: tokens[$0.id] ?? [], privacyIDEAServers: servers[$0.id] ?? [], containers: containers[$0.id] ?? [],
                        containerTokens: held[$0.id] ?? [], tiqrIdentities: identities[$0.id] ?? [])
                }
            }
        } catch { throw .storage("the phones could not be read: \(error)") }
        var exported = Exported()
        for rows in rows {
            let phone = rows.phone
            exported.phones.append(rows.exported)
            exported.phoneSecrets[phone.id] = ExportedState.PhoneSecrets(
                deviceKeySeed: phone.deviceKeySeed, pinSalt: phone.pinSalt, biometricSecretKey: phone.biometricSecretKey,
                pinPublicKey: phone.pinPublicKey,
                privacyIDEATokenKeys: Dictionary(uniqueKeysWithValues: rows.privacyIDEATokens.map { ($0.serial, $0.tokenKey) }),
                privacyIDEAContainerKeys: Dictionary(uniqueKeysWithValues: rows.containers.map { ($0.serial, $0.signingKey) }),
                tiqrSecrets: Dictionary(uniqueKeysWithValues: rows.tiqrIdentities.map { ($0.exported.key, $0.secret) }))
            for account in rows.accounts {
                exported.accountSecrets[account.id] = ExportedState.AccountSecrets(secretKey: account.secretKey, otpKey: account.otpKey)
            }
            for account in rows.otpAccounts { exported.otpSecrets[account.id] = account.secret }
        }
        return exported
    }

    /// Whether any phone is stored: an import into a folder with phones must be asked to replace them.
    public func isEmpty() async throws(StateExportError) -> Bool {
        do { return try await database.read { sql in try sql.fetchOne(Bool.self, "SELECT 1 FROM phone LIMIT 1", []) == nil } } catch {
            throw .storage("the phones could not be read: \(error)")
        }
    }

    /// Refuses a state whose phones the store would not take, before any store is written.
    public static func check(_ state: ExportedState) throws(StateExportError) {
        _ = try rows(of: state)
    }

    /// Each phone's rows. A file written before phones had numbers gives none: each such phone
    /// gets the next number of the fictional range that no phone of the file has.
    private static func rows(of state: ExportedState) throws(StateExportError) -> [PhoneRows] {
        var given = Set<String>()
        for phone in state.phones {
            guard let text = phone.number else { continue }
            let number: PhoneNumber
            do { number = try PhoneNumber(reading: text) } catch { throw .invalid("phone \(phone.id): the number \(error)") }
            guard number.e164 == text else { throw .invalid("phone \(phone.id): the number '\(text)' is not written in E.164 (\(number))") }
            guard given.insert(text).inserted else { throw .invalid("phone \(phone.id): the number \(text) is another phone's too") }
        }
        var next = 0
        return try state.phones.map { phone throws(StateExportError) in
            var number = phone.number
            while number == nil {
                let candidate = PhoneNumber.fictional(next).e164
                next += 1
                if !given.contains(candidate) { number = candidate }
            }
            return try PhoneRows.loaded(phone, number: number ?? "", from: state)
        }
    }

    /// The state's phones, in one transaction: with `replacing`, instead of every phone there was;
    /// a phone that cannot be stored leaves the store as it was.
    public func load(_ state: ExportedState, replacing: Bool) async throws(StateExportError) {
        let rows = try Self.rows(of: state)
        do {
            try await database.write { sql in
                if replacing { try sql.emptyTables(keeping: []) }
                for rows in rows {
                    try PhoneRecord.insertion.run(rows.phone, sql)
                    for account in rows.accounts { try AccountRecord.insertion.run(account, sql) }
                    for account in rows.otpAccounts { try OTPAccountRecord.insertion.run(account, sql) }
                    for token in rows.privacyIDEATokens { try PushTokenRecord.insertion.run(token, sql) }
                    for server in rows.privacyIDEAServers { try server.insert(sql) }
                    for container in rows.containers { try ContainerRecord.insertion.run(container, sql) }
                    for token in rows.containerTokens { try ContainerTokenRecord.insertion.run(token, sql) }
                    for identity in rows.tiqrIdentities { try TiqrIdentityRecord.insertion.run(identity, sql) }
                }
            }
        } catch { throw .storage("the phones could not be stored (nothing was changed): \(error)") }
    }
}

extension PhoneStore.PhoneRows {
    var exported: ExportedState.Phone {
        ExportedState.Phone(
            id: phone.id, name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken, number: phone.number,
            pinLength: phone.pinLength, createdAt: phone.createdAt,
            settings: ExportedState.Settings(
                openPushesAtOnce: phone.openPushesAtOnce, pushNotificationsDisabled: phone.pushNotificationsDisabled,
                biometricSensor: phone.biometricSensor, biometricsDisabled: phone.biometricsDisabled, legacyBioAddFlow: phone.legacyBioAddFlow,
                disallowPinChangeWithBiometric: phone.disallowPinChangeWithBiometric,
                maxNumberSecondFactorWithoutPIN: phone.maxNumberSecondFactorWithoutPIN,
                maxTimeSecondFactorWithoutPIN: phone.maxTimeSecondFactorWithoutPIN, showVisualHash: phone.showVisualHash,
                pinChangeStyle: phone.pinChangeStyle.rawValue, otpCountdown: phone.otpCountdown, pollPushTokens: phone.pollPushTokens,
                unlockPushTokens: phone.unlockPushTokens),
            biometrics: ExportedState.Biometrics(
                enrolledFeatures: phone.enrolledFeatures, featureSetVersion: phone.featureSetVersion, keySetVersion: phone.biometricKeySetVersion,
                usesSinceLastPin: phone.biometricUsesSinceLastPin, lastPinAt: phone.lastPinAt),
            accounts: accounts.map { account in
                ExportedState.Account(
                    id: account.id, userId: account.userId, displayName: account.displayName, serverName: account.serverName,
                    serverURL: account.serverURL, serverPublicKey: account.serverPublicKey, createdAt: account.createdAt,
                    otpReference: account.otpReference)
            },
            otpAccounts: otpAccounts.isEmpty ? nil : otpAccounts.map(\.exported),
            privacyIDEATokens: privacyIDEATokens.isEmpty ? nil : privacyIDEATokens.map(\.exported),
            privacyIDEAServers: privacyIDEAServers.isEmpty
                ? nil : privacyIDEAServers.map { ExportedState.PrivacyIDEAServer(origin: $0.origin, acceptedAt: $0.acceptedAt) },
            privacyIDEAContainers: containers.isEmpty ? nil : containers.map { $0.exported(holding: containerTokens) },
            tiqrIdentities: tiqrIdentities.isEmpty ? nil : tiqrIdentities.map(\.exported))
    }

    /// The rows of an exported phone, its settings checked by the rules a settings change follows,
    /// its OTP accounts by those a key URI is held to, its privacyIDEA tokens by those an
    /// enrolment is (keys that parse, a server's address).
    static func loaded(_ phone: ExportedState.Phone, number: String, from state: ExportedState) throws(StateExportError)
        -> PhoneStore.PhoneRows
    {
        func refuse(_ reason: String) -> StateExportError { .invalid("phone \(phone.id): \(reason)") }
        if let problem = ReadableText.nameProblem(in: phone.name, limit: 64) { throw refuse("the name \(problem)") }
        guard PinPolicy.allowedLengths.contains(phone.pinLength) else { throw refuse("pinLength \(phone.pinLength) is not allowed") }
        let settings = phone.settings
        guard let pinChangeStyle = FlowOptions.PinChangeStyle(rawValue: settings.pinChangeStyle) else {
            throw refuse("pinChangeStyle '\(settings.pinChangeStyle)' is not one AuthPhone knows")
        }
        let secrets = try state.secrets(ofPhone: phone.id)
        guard secrets.pinPublicKey == nil || secrets.pinSalt != nil else { throw refuse("a PIN key without a PIN salt") }
        var record = PhoneRecord(
            id: phone.id, name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken, number: number,
            pinLength: phone.pinLength, pinSalt: secrets.pinSalt, createdAt: phone.createdAt, openPushesAtOnce: settings.openPushesAtOnce,
            enrolledFeatures: phone.biometrics.enrolledFeatures, featureSetVersion: phone.biometrics.featureSetVersion,
            biometricSecretKey: secrets.biometricSecretKey, biometricKeySetVersion: phone.biometrics.keySetVersion,
            biometricUsesSinceLastPin: phone.biometrics.usesSinceLastPin, lastPinAt: phone.biometrics.lastPinAt,
            pushNotificationsDisabled: settings.pushNotificationsDisabled, deviceKeySeed: secrets.deviceKeySeed,
            pinPublicKey: secrets.pinPublicKey)
        do {
            try record.apply(
                PhoneSettingsChange(
                    biometricSensor: settings.biometricSensor, biometricsDisabled: settings.biometricsDisabled,
                    legacyBioAddFlow: settings.legacyBioAddFlow, disallowPinChangeWithBiometric: settings.disallowPinChangeWithBiometric,
                    maxNumberSecondFactorWithoutPIN: settings.maxNumberSecondFactorWithoutPIN,
                    maxTimeSecondFactorWithoutPIN: settings.maxTimeSecondFactorWithoutPIN, showVisualHash: settings.showVisualHash,
                    pinChangeStyle: pinChangeStyle, otpCountdown: settings.otpCountdown, pollPushTokens: settings.pollPushTokens,
                    unlockPushTokens: settings.unlockPushTokens))
        } catch { throw refuse("\(error)") }
        let accounts = try phone.accounts.map { account throws(StateExportError) in
            let secrets = try state.secrets(ofAccount: account.id)
            return AccountRecord(
                id: account.id, phoneId: phone.id, userId: account.userId, displayName: account.displayName, serverName: account.serverName,
                serverURL: account.serverURL, serverPublicKey: account.serverPublicKey, secretKey: secrets.secretKey,
                createdAt: account.createdAt, otpReference: account.otpReference, otpKey: secrets.otpKey)
        }
        let otpAccounts = try (phone.otpAccounts ?? []).map { account throws(StateExportError) in
            do { return try OTPAccountRecord.loaded(account, phoneId: phone.id, secret: try state.secret(ofOTPAccount: account.id)) } catch {
                throw refuse("OTP account \(account.id): \(error)")
            }
        }
        let tokens = try (phone.privacyIDEATokens ?? []).map { token throws(StateExportError) in
            do {
                return try PushTokenRecord.loaded(token, phoneId: phone.id, key: try state.key(ofPrivacyIDEAToken: token.serial, phone: phone.id))
            } catch {
                throw refuse("privacyIDEA token \(token.serial): \(error)")
            }
        }
        let servers = try (phone.privacyIDEAServers ?? []).map { server throws(StateExportError) in
            guard PushTokenRecord.isAddress(server.origin, of: server.origin) else {
                throw refuse("the privacyIDEA server '\(server.origin)' is not an http(s) origin")
            }
            return PrivacyIDEAOriginRecord(phoneId: phone.id, origin: server.origin, acceptedAt: server.acceptedAt)
        }
        var containers: [ContainerRecord] = []
        var held: [ContainerTokenRecord] = []
        for container in phone.privacyIDEAContainers ?? [] {
            do {
                containers.append(
                    try ContainerRecord.loaded(
                        container, phoneId: phone.id, key: try state.key(ofPrivacyIDEAContainer: container.serial, phone: phone.id)))
            } catch {
                throw refuse("privacyIDEA container \(container.serial): \(error)")
            }
            held += container.tokens.map {
                ContainerTokenRecord(
                    phoneId: phone.id, container: container.serial, serial: $0.serial, tokentype: $0.tokentype, otpAccountId: $0.otpAccountId)
            }
        }
        let identities = try (phone.tiqrIdentities ?? []).map { identity throws(StateExportError) in
            do {
                return try TiqrIdentityRecord.loaded(
                    identity, phoneId: phone.id, secret: try state.secret(ofTiqrIdentity: identity.key, phone: phone.id))
            } catch {
                throw refuse("tiqr identity \(identity.key): \(error)")
            }
        }
        return PhoneStore.PhoneRows(
            phone: record, accounts: accounts, otpAccounts: otpAccounts, privacyIDEATokens: tokens, privacyIDEAServers: servers,
            containers: containers, containerTokens: held, tiqrIdentities: identities)
    }
}

extension OTPAccountRecord {
    var exported: ExportedState.OTPAccount {
        let account = account
        return ExportedState.OTPAccount(
            id: id, kind: account.kind.rawValue, issuer: account.issuer, label: label, algorithm: algorithm, digits: digits, period: period,
            counter: counter, createdAt: createdAt)
    }

    /// The row of an exported OTP account: a TOTP with its period, an HOTP with its counter, and
    /// what the phone makes codes from held to the bounds of a key URI.
    static func loaded(_ account: ExportedState.OTPAccount, phoneId: String, secret: Data) throws -> OTPAccountRecord {
        switch (OTPAccount.Kind(rawValue: account.kind), account.period, account.counter) {
        case (.totp, _?, nil), (.hotp, nil, _?): break
        default: throw StateExportError.invalid("kind '\(account.kind)' is not totp with a period or hotp with a counter")
        }
        let record = OTPAccountRecord(
            id: account.id, phoneId: phoneId, issuer: account.issuer ?? "", label: account.label, algorithm: account.algorithm,
            digits: account.digits, period: account.period, counter: account.counter, secret: secret, createdAt: account.createdAt)
        try OTPAuthURI.checkNames(issuer: account.issuer, account: account.label)
        _ = try record.generator()
        return record
    }
}

extension PushTokenRecord {
    var exported: ExportedState.PrivacyIDEAToken {
        ExportedState.PrivacyIDEAToken(
            serial: serial, label: label, issuer: issuer, url: url, origin: origin, sslVerify: sslVerify, pollOnly: pollOnly,
            requiresUnlock: requiresUnlock, unlockFactor: unlockFactor, serverKey: serverKey, fcmToken: fcmToken, createdAt: createdAt)
    }

    /// The row of an exported token: its key and privacyIDEA's must parse, and it must answer
    /// at an http(s) address of the server it names.
    static func loaded(_ token: ExportedState.PrivacyIDEAToken, phoneId: String, key: Data) throws -> PushTokenRecord {
        _ = try PushTokenKey(pkcs8: key)
        _ = try PrivacyIDEAServerKey(token.serverKey)
        if let factor = token.unlockFactor, UnlockFactor(rawValue: factor) == nil {
            throw StateExportError.invalid("its unlock factor '\(factor)' is not PIN or BIOMETRIC")
        }
        guard isAddress(token.url, of: token.origin) else {
            throw StateExportError.invalid("its address '\(token.url)' is not an http(s) address of '\(token.origin)'")
        }
        return PushTokenRecord(
            phoneId: phoneId, serial: token.serial, label: token.label, issuer: token.issuer, url: token.url, origin: token.origin,
            sslVerify: token.sslVerify, pollOnly: token.pollOnly, requiresUnlock: token.requiresUnlock, unlockFactor: token.unlockFactor,
            tokenKey: key,
            serverKey: token.serverKey, fcmToken: token.fcmToken, createdAt: token.createdAt)
    }

    /// Whether `address` is a URL a token may answer at (`PushEnrolment.isServerURL`) on the
    /// server `origin` names.
    static func isAddress(_ address: String, of origin: String) -> Bool {
        guard let url = URL(string: address), PushEnrolment.isServerURL(url) else { return false }
        return Phone.origin(of: url) == origin
    }
}

extension ContainerRecord {
    func exported(holding held: [ContainerTokenRecord]) -> ExportedState.PrivacyIDEAContainer {
        ExportedState.PrivacyIDEAContainer(
            serial: serial, issuer: issuer, serverURL: serverURL, origin: origin, sslVerify: sslVerify, registeredAt: registeredAt,
            syncedAt: syncedAt,
            tokens: held.filter { $0.container == serial }.map { .init(serial: $0.serial, tokentype: $0.tokentype, otpAccountId: $0.otpAccountId) })
    }

    /// The row of an exported container: its key must parse, and its server be an http(s)
    /// address of the origin it names.
    static func loaded(_ container: ExportedState.PrivacyIDEAContainer, phoneId: String, key: Data) throws -> ContainerRecord {
        _ = try ContainerKey(raw: key)
        guard PushTokenRecord.isAddress(container.serverURL, of: container.origin) else {
            throw StateExportError.invalid("its server '\(container.serverURL)' is not an http(s) address of '\(container.origin)'")
        }
        return ContainerRecord(
            phoneId: phoneId, serial: container.serial, issuer: container.issuer, serverURL: container.serverURL, origin: container.origin,
            sslVerify: container.sslVerify, signingKey: key, registeredAt: container.registeredAt, syncedAt: container.syncedAt)
    }
}
