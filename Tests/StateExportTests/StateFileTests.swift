import Foundation
import SodiumKit
import Testing

@testable import StateExport

@Suite struct StateFileTests {
    static let passphrase = "correct horse battery staple"
    static let time = Date(timeIntervalSince1970: 1_763_922_673.123)

    static func key(_ count: Int) -> Data { Data(try! Sodium.randomBytes(count)) }

    /// One phone with an account enrolled at the backend, a PIN and an offline OTP key, and a
    /// privacyIDEA push token held by a privacyIDEA container.
    static func state() -> ExportedState {
        let account = ExportedState.Account(
            id: "account-1", userId: "alice", displayName: "Alice", serverName: "AuthPhone demo", serverURL: "http://127.0.0.1:8080",
            serverPublicKey: key(32), createdAt: time, otpReference: 7)
        let phone = ExportedState.Phone(
            id: "phone-1", name: "Pixel", deviceId: "device-1", fcmToken: "fid:APA91btoken", pinLength: 6, createdAt: time,
            settings: ExportedState.Settings(
                openPushesAtOnce: true, pushNotificationsDisabled: false, biometricSensor: true, biometricsDisabled: false,
                legacyBioAddFlow: false, disallowPinChangeWithBiometric: false, maxNumberSecondFactorWithoutPIN: 3,
                maxTimeSecondFactorWithoutPIN: 0, showVisualHash: true, pinChangeStyle: "nextAuth", otpCountdown: 60),
            biometrics: ExportedState.Biometrics(enrolledFeatures: 1, featureSetVersion: 1, keySetVersion: nil, usesSinceLastPin: 0, lastPinAt: time),
            accounts: [account],
            privacyIDEATokens: [
                ExportedState.PrivacyIDEAToken(
                    serial: "PIPU0001", label: "alice", issuer: "privacyIDEA", url: "https://pi.example/ttype/push", origin: "https://pi.example",
                    sslVerify: true, pollOnly: false, requiresUnlock: false, serverKey: "-----BEGIN PUBLIC KEY-----", fcmToken: "fid:APA91btoken",
                    createdAt: time)
            ],
            privacyIDEAServers: [ExportedState.PrivacyIDEAServer(origin: "https://pi.example", acceptedAt: time)],
            privacyIDEAContainers: [
                ExportedState.PrivacyIDEAContainer(
                    serial: "SMPH0001", issuer: "privacyIDEA", serverURL: "https://pi.example", origin: "https://pi.example", sslVerify: true,
                    registeredAt: time, syncedAt: nil, tokens: [.init(serial: "PIPU0001", tokentype: "push", otpAccountId: nil)])
            ],
            tiqrIdentities: [
                ExportedState.TiqrIdentity(
                    serviceIdentifier: "org.example", identity: "alice_realm", identityName: "Alice", serviceName: "Example IdP",
                    serial: "TiQR0001", authenticationURL: "https://pi.example/ttype/tiqr", origin: "https://pi.example",
                    ocraSuite: "OCRA-1:HOTP-SHA1-6:QN10", enrolledAt: time)
            ])
        let backend = ExportedState.Backend(
            accounts: [
                ExportedState.BackendAccount(
                    id: "account-1", userId: "alice", displayName: "Alice", deviceId: "device-1", publicKey: key(32), createdAt: time,
                    otpReference: 7, otpFailures: 1, otpLastStep: 42)
            ],
            devices: [ExportedState.Device(deviceId: "device-1", name: "Pixel", fcmToken: "fid:APA91btoken", updatedAt: time)],
            secondFactors: [
                ExportedState.SecondFactor(
                    deviceId: "device-1", failedAttempts: 1, isBlocked: false, penalisedUntil: nil, updatedAt: time, biometricPublicKey: nil,
                    devicePublicKey: key(32))
            ],
            policy: ExportedState.Policy(maxAttempts: 5, penalties: [60, 180], updatedAt: time),
            serverFlags: [ExportedState.ServerFlag(name: "otpLogin", enabled: true, updatedAt: time)])
        return ExportedState(
            phones: [phone], backend: backend,
            secrets: ExportedState.Secrets(
                phones: [
                    "phone-1": ExportedState.PhoneSecrets(
                        deviceKeySeed: key(32), pinSalt: key(16), biometricSecretKey: nil, pinPublicKey: key(32),
                        privacyIDEATokenKeys: ["PIPU0001": key(1218)], privacyIDEAContainerKeys: ["SMPH0001": key(48)],
                        tiqrSecrets: ["alice_realm@org.example": key(32)])
                ],
                accounts: ["account-1": ExportedState.AccountSecrets(secretKey: key(64), otpKey: key(32))],
                serverSecretKey: key(64), backendOTPKeys: ["account-1": key(32)], pinPublicKeys: ["device-1": key(32)]))
    }

    static func guarded(_ text: String) -> GuardedBytes { try! GuardedBytes(copying: Array(text.utf8)) }

    static func written(_ state: ExportedState = state()) throws -> Data {
        try StateFile.write(state, passphrase: guarded(passphrase), cost: .minimum, at: time)
    }

    /// The file as a JSON object, changed by `change`, written back.
    static func changed(_ data: Data, _ change: (inout [String: Any]) -> Void) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        change(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }

    static func refusal(_ data: Data, passphrase: String = passphrase) -> String? {
        do throws(StateExportError) {
            _ = try StateFile.read(data, passphrase: guarded(passphrase))
            return nil
        } catch { return error.code }
    }

    @Test func aStateComesBackAsItWasWritten() throws {
        let state = Self.state()
        let data = try Self.written(state)
        #expect(try StateFile.read(data, passphrase: Self.guarded(Self.passphrase)) == state)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "authphone-export")
        #expect(object["version"] as? Int == 1)
        let kdf = try #require((object["sealed"] as? [String: Any])?["kdf"] as? [String: Any])
        #expect(kdf["algorithm"] as? String == "argon2id13")
        #expect(kdf["opsLimit"] as? Int == PassphraseBox.Cost.minimum.opsLimit)
        #expect(kdf["memLimit"] as? Int == PassphraseBox.Cost.minimum.memLimit)
    }

    /// Every millisecond of two seconds reads back as the time written, and writes again the same
    /// (Foundation's own ISO 8601 format would give …​.122 for …​.123).
    @Test func timesKeepTheirMilliseconds() throws {
        for millisecond in Int64(1_763_922_672_000)..<1_763_922_674_000 {
            let time = Date(timeIntervalSince1970: Double(millisecond) / 1000)
            let text = StateFile.text(of: time)
            #expect(text.hasSuffix(String(format: ".%03dZ", Int(millisecond % 1000))), "\(text)")
            let read = try #require(StateFile.date(from: text))
            #expect(read == time && StateFile.text(of: read) == text, "\(text)")
        }
        #expect(StateFile.text(of: Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        for bad in ["2025-11-23T18:31:13Z", "2025-11-23T18:31:13.1234Z", "2025-11-23T18:31:13.-12Z", "yesterday"] {
            #expect(StateFile.date(from: bad) == nil, "\(bad)")
        }
    }

    @Test func noSecretIsInClear() throws {
        let state = Self.state()
        let text = String(decoding: try Self.written(state), as: UTF8.self)
        let secrets = state.secrets
        var clear: [Data] = [secrets.serverSecretKey] + secrets.backendOTPKeys.values + secrets.pinPublicKeys.values
        for phone in secrets.phones.values {
            clear += [phone.deviceKeySeed] + [phone.pinSalt, phone.pinPublicKey].compactMap { $0 } + (phone.privacyIDEATokenKeys ?? [:]).values
        }
        for account in secrets.accounts.values { clear += [account.secretKey] + [account.otpKey].compactMap { $0 } }
        for secret in clear { #expect(!text.contains(secret.base64EncodedString())) }
        // what is in clear is readable as it is
        #expect(text.contains("\"name\" : \"Pixel\"") && text.contains("2025-11-23T18:31:13.123Z"))
    }

    @Test func theDefaultCostIsInteractive() throws {
        let data = try StateFile.write(Self.state(), passphrase: Self.guarded(Self.passphrase), at: Self.time)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let kdf = try #require((object["sealed"] as? [String: Any])?["kdf"] as? [String: Any])
        #expect(kdf["opsLimit"] as? Int == PassphraseBox.Cost.interactive.opsLimit)
        #expect(kdf["memLimit"] as? Int == PassphraseBox.Cost.interactive.memLimit)
    }

    @Test func aWrongPassphraseDoesNotOpenIt() throws {
        #expect(Self.refusal(try Self.written(), passphrase: "correct horse battery stapler") == "EXPORT_CANNOT_OPEN")
    }

    @Test func aChangedSealedPartDoesNotOpen() throws {
        let data = try Self.written()
        for field in ["box", "nonce"] {
            let tampered = try Self.changed(data) { object in
                var sealed = object["sealed"] as! [String: Any]
                var bytes = Data(base64Encoded: sealed[field] as! String)!
                bytes[bytes.count / 2] ^= 1
                sealed[field] = bytes.base64EncodedString()
                object["sealed"] = sealed
            }
            #expect(Self.refusal(tampered) == "EXPORT_CANNOT_OPEN", "\(field)")
        }
        let otherSalt = try Self.changed(data) { object in
            var sealed = object["sealed"] as! [String: Any]
            var kdf = sealed["kdf"] as! [String: Any]
            kdf["salt"] = Self.key(16).base64EncodedString()
            sealed["kdf"] = kdf
            object["sealed"] = sealed
        }
        #expect(Self.refusal(otherSalt) == "EXPORT_CANNOT_OPEN")
    }

    @Test func aChangedClearPartIsRefused() throws {
        let data = try Self.written()
        // another public key for the backend's account: whoever holds its secret half would log in as alice
        let swappedKey = try Self.changed(data) { object in
            var state = object["state"] as! [String: Any]
            var backend = state["backend"] as! [String: Any]
            var accounts = backend["accounts"] as! [[String: Any]]
            accounts[0]["publicKey"] = Self.key(32).base64EncodedString()
            backend["accounts"] = accounts
            state["backend"] = backend
            object["state"] = state
        }
        #expect(Self.refusal(swappedKey) == "EXPORT_TAMPERED")
        let renamed = try Self.changed(data) { object in
            var state = object["state"] as! [String: Any]
            var phones = state["phones"] as! [[String: Any]]
            phones[0]["name"] = "Not Pixel"
            state["phones"] = phones
            object["state"] = state
        }
        #expect(Self.refusal(renamed) == "EXPORT_TAMPERED")
    }

    @Test func anotherVersionOrFormatIsRefused() throws {
        let data = try Self.written()
        #expect(Self.refusal(try Self.changed(data) { $0["version"] = 2 }) == "EXPORT_VERSION_UNSUPPORTED")
        #expect(Self.refusal(try Self.changed(data) { $0["version"] = nil }) == "EXPORT_VERSION_UNSUPPORTED")
        #expect(Self.refusal(try Self.changed(data) { $0["format"] = "keycloak-realm" }) == "EXPORT_NOT_AN_EXPORT")
        #expect(Self.refusal(try Self.changed(data) { $0["sealed"] = nil }) == "EXPORT_NOT_AN_EXPORT")
    }

    @Test func truncatedOrOtherJSONIsRefused() throws {
        let data = try Self.written()
        for length in [0, 1, data.count / 2, data.count - 1] {
            #expect(Self.refusal(data.prefix(length)) == "EXPORT_NOT_AN_EXPORT", "\(length) bytes")
        }
        #expect(Self.refusal(Data("[1, 2]".utf8)) == "EXPORT_NOT_AN_EXPORT")
        #expect(Self.refusal(Data(#"{"format": "authphone-export", "format": "x"}"#.utf8)) == "EXPORT_NOT_AN_EXPORT")
        #expect(Self.refusal(Data(count: StateFile.maximumSize + 1)) == "EXPORT_UNREADABLE")
    }

    /// The reader spends what the file asks only within its bounds: an attacker's 4 GiB is refused
    /// before Argon2id would allocate it.
    @Test func limitsOutsideTheBoundsAreRefusedBeforeTheyAreSpent() throws {
        let data = try Self.written()
        for (ops, mem) in [(1, 4 << 30), (1, PassphraseBox.Cost.moderate.memLimit + 1), (100, 8192), (0, 8192), (1, 1024)] {
            let costly = try Self.changed(data) { object in
                var sealed = object["sealed"] as! [String: Any]
                var kdf = sealed["kdf"] as! [String: Any]
                kdf["opsLimit"] = ops
                kdf["memLimit"] = mem
                sealed["kdf"] = kdf
                object["sealed"] = sealed
            }
            let started = ContinuousClock.now
            #expect(Self.refusal(costly) == "EXPORT_KDF_LIMITS", "\(ops) passes, \(mem) bytes")
            #expect(ContinuousClock.now - started < .seconds(1))
        }
    }

    @Test func aStateWhosePartsDoNotFitIsNotWritten() throws {
        var twice = Self.state()
        twice.phones.append(twice.phones[0])
        #expect(throws: StateExportError.self) { try Self.written(twice) }
        var noSecrets = Self.state()
        noSecrets.secrets.accounts = [:]
        #expect(throws: StateExportError.invalid("the sealed accounts lack account-1")) { try Self.written(noSecrets) }
        var shortKey = Self.state()
        shortKey.secrets.serverSecretKey = Self.key(32)
        #expect(throws: StateExportError.invalid("the server key is 32 bytes, not 64")) { try Self.written(shortKey) }
        var keyless = Self.state()
        keyless.secrets.phones["phone-1"]?.privacyIDEATokenKeys = nil
        #expect(throws: StateExportError.invalid("the sealed privacyIDEA keys of phone phone-1 lack PIPU0001")) { try Self.written(keyless) }
        var serialTwice = Self.state()
        let tokens = serialTwice.phones[0].privacyIDEATokens ?? []
        serialTwice.phones[0].privacyIDEATokens = tokens + tokens
        #expect(throws: StateExportError.invalid("the privacyIDEA serial of phone phone-1 PIPU0001 appears twice")) { try Self.written(serialTwice) }
        var containerKeyless = Self.state()
        containerKeyless.secrets.phones["phone-1"]?.privacyIDEAContainerKeys = nil
        #expect(throws: StateExportError.invalid("the sealed privacyIDEA container keys of phone phone-1 lack SMPH0001")) {
            try Self.written(containerKeyless)
        }
        var strayToken = Self.state()
        strayToken.phones[0].privacyIDEAContainers?[0].tokens = [.init(serial: "OATH9", tokentype: "hotp", otpAccountId: "otp-9")]
        #expect(throws: StateExportError.invalid("phone phone-1's container token OATH9 names no OTP account of it")) { try Self.written(strayToken) }
        var tiqrSecretless = Self.state()
        tiqrSecretless.secrets.phones["phone-1"]?.tiqrSecrets = nil
        #expect(throws: StateExportError.invalid("the sealed tiqr secrets of phone phone-1 lack alice_realm@org.example")) {
            try Self.written(tiqrSecretless)
        }
        var shortPinKey = Self.state()
        shortPinKey.secrets.phones["phone-1"]?.pinPublicKey = Self.key(16)
        #expect(throws: StateExportError.invalid("phone phone-1's PIN key is 16 bytes, not 32")) { try Self.written(shortPinKey) }
    }

    @Test func thePassphraseComesFromAFileOrTheEnvironmentOnly() throws {
        #expect(throws: StateExportError.passphraseMissing) { try Passphrase.read(file: nil, environment: [:]) }
        let fromEnvironment = try Passphrase.read(file: nil, environment: [Passphrase.variable: Self.passphrase])
        #expect(fromEnvironment.hasSameBytes(as: Self.guarded(Self.passphrase)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("passphrase-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((Self.passphrase + "\n").utf8).write(to: file)
        // the file wins, its line break dropped
        let fromFile = try Passphrase.read(file: file.path, environment: [Passphrase.variable: "something else entirely"])
        #expect(fromFile.hasSameBytes(as: Self.guarded(Self.passphrase)))
        #expect(throws: StateExportError.self) { try Passphrase.read(file: nil, environment: [Passphrase.variable: "short"]) }
        #expect(throws: StateExportError.self) { try Passphrase.read(file: file.path + ".missing", environment: [:]) }
        // a file with no end is read no further than a passphrase can be
        #expect(throws: StateExportError.self) { try Passphrase.read(file: "/dev/zero", environment: [:]) }
    }
}
