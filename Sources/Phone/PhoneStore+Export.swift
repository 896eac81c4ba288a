import AuthFlow
import BackendAPI
import Foundation
import OTP
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

    /// Every phone with its accounts, its OTP accounts and their secrets, oldest first.
    public func exported() async throws(StateExportError) -> Exported {
        let rows: [(PhoneRecord, [AccountRecord], [OTPAccountRecord])]
        do {
            rows = try await database.readAll { sql in
                // all accounts in one query each, each phone's kept in their order
                let accounts = Dictionary(
                    grouping: try sql.fetchAll(AccountRecord.self, "SELECT * FROM account ORDER BY createdAt, id", []), by: \.phoneId)
                let otpAccounts = Dictionary(
                    grouping: try sql.fetchAll(OTPAccountRecord.self, "SELECT * FROM otpAccount ORDER BY createdAt, id", []), by: \.phoneId)
                return try sql.fetchAll(PhoneRecord.self, "SELECT * FROM phone ORDER BY createdAt, id", []).map {
                    ($0, accounts[$0.id] ?? [], otpAccounts[$0.id] ?? [])
                }
            }
        } catch { throw .storage("the phones could not be read: \(error)") }
        var exported = Exported()
        for (phone, accounts, otpAccounts) in rows {
            exported.phones.append(phone.exported(accounts: accounts, otpAccounts: otpAccounts))
            exported.phoneSecrets[phone.id] = ExportedState.PhoneSecrets(
                deviceKeySeed: phone.deviceKeySeed, pinSalt: phone.pinSalt, biometricSecretKey: phone.biometricSecretKey)
            for account in accounts {
                exported.accountSecrets[account.id] = ExportedState.AccountSecrets(secretKey: account.secretKey, otpKey: account.otpKey)
            }
            for account in otpAccounts { exported.otpSecrets[account.id] = account.secret }
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

    private static func rows(of state: ExportedState) throws(StateExportError) -> [(PhoneRecord, [AccountRecord], [OTPAccountRecord])] {
        try state.phones.map { phone throws(StateExportError) in try PhoneRecord.loaded(phone, from: state) }
    }

    /// The state's phones, in one transaction: with `replacing`, instead of every phone there was;
    /// a phone that cannot be stored leaves the store as it was.
    public func load(_ state: ExportedState, replacing: Bool) async throws(StateExportError) {
        let rows = try Self.rows(of: state)
        do {
            try await database.write { sql in
                if replacing { try sql.emptyTables(keeping: []) }
                for (phone, accounts, otpAccounts) in rows {
                    try PhoneRecord.insertion.run(phone, sql)
                    for account in accounts { try AccountRecord.insertion.run(account, sql) }
                    for account in otpAccounts { try OTPAccountRecord.insertion.run(account, sql) }
                }
            }
        } catch { throw .storage("the phones could not be stored (nothing was changed): \(error)") }
    }
}

extension PhoneRecord {
    func exported(accounts: [AccountRecord], otpAccounts: [OTPAccountRecord]) -> ExportedState.Phone {
        ExportedState.Phone(
            id: id, name: name, deviceId: deviceId, fcmToken: fcmToken, pinLength: pinLength, createdAt: createdAt,
            settings: ExportedState.Settings(
                openPushesAtOnce: openPushesAtOnce, pushNotificationsDisabled: pushNotificationsDisabled, biometricSensor: biometricSensor,
                biometricsDisabled: biometricsDisabled, legacyBioAddFlow: legacyBioAddFlow,
                disallowPinChangeWithBiometric: disallowPinChangeWithBiometric, maxNumberSecondFactorWithoutPIN: maxNumberSecondFactorWithoutPIN,
                maxTimeSecondFactorWithoutPIN: maxTimeSecondFactorWithoutPIN, showVisualHash: showVisualHash,
                pinChangeStyle: pinChangeStyle.rawValue, otpCountdown: otpCountdown, pollPushTokens: pollPushTokens,
                unlockPushTokens: unlockPushTokens),
            biometrics: ExportedState.Biometrics(
                enrolledFeatures: enrolledFeatures, featureSetVersion: featureSetVersion, keySetVersion: biometricKeySetVersion,
                usesSinceLastPin: biometricUsesSinceLastPin, lastPinAt: lastPinAt),
            accounts: accounts.map { account in
                ExportedState.Account(
                    id: account.id, userId: account.userId, displayName: account.displayName, serverName: account.serverName,
                    serverURL: account.serverURL, serverPublicKey: account.serverPublicKey, createdAt: account.createdAt,
                    otpReference: account.otpReference)
            },
            otpAccounts: otpAccounts.isEmpty ? nil : otpAccounts.map(\.exported))
    }

    /// The rows of an exported phone, its settings checked by the rules a settings change follows,
    /// its OTP accounts by those a key URI is held to.
    static func loaded(
        _ phone: ExportedState.Phone, from state: ExportedState
    ) throws(StateExportError) -> (PhoneRecord, [AccountRecord], [OTPAccountRecord]) {
        func refuse(_ reason: String) -> StateExportError { .invalid("phone \(phone.id): \(reason)") }
        if let problem = ReadableText.nameProblem(in: phone.name, limit: 64) { throw refuse("the name \(problem)") }
        guard PinPolicy.allowedLengths.contains(phone.pinLength) else { throw refuse("pinLength \(phone.pinLength) is not allowed") }
        let settings = phone.settings
        guard let pinChangeStyle = FlowOptions.PinChangeStyle(rawValue: settings.pinChangeStyle) else {
            throw refuse("pinChangeStyle '\(settings.pinChangeStyle)' is not one AuthPhone knows")
        }
        let secrets = try state.secrets(ofPhone: phone.id)
        var record = PhoneRecord(
            id: phone.id, name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken, pinLength: phone.pinLength,
            pinSalt: secrets.pinSalt, createdAt: phone.createdAt, openPushesAtOnce: settings.openPushesAtOnce,
            enrolledFeatures: phone.biometrics.enrolledFeatures, featureSetVersion: phone.biometrics.featureSetVersion,
            biometricSecretKey: secrets.biometricSecretKey, biometricKeySetVersion: phone.biometrics.keySetVersion,
            biometricUsesSinceLastPin: phone.biometrics.usesSinceLastPin, lastPinAt: phone.biometrics.lastPinAt,
            pushNotificationsDisabled: settings.pushNotificationsDisabled, deviceKeySeed: secrets.deviceKeySeed)
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
        return (record, accounts, otpAccounts)
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
