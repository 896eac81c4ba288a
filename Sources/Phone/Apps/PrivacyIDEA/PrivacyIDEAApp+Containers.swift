import Foundation
import Identifiers
import OTP
import PrivacyIDEA

/// privacyIDEA's smartphone containers (docs/privacyidea.md#containers): the phone registers a
/// container from its code with a key of its own, then synchronises it. privacyIDEA answers with
/// the tokens to add (enrolled here as if scanned), those it keeps, and by their absence those it
/// removed. The first synchronisation follows the registration.
extension PrivacyIDEAApp {
    public func startContainerRegistration(phoneId: String, text: String) async throws(PhoneError) -> PrivacyIDEARequest {
        let registration: ContainerRegistration
        do { registration = try ContainerRegistration(text: text, now: device.now()) } catch {
            throw PhoneError(.badRequest, error.code, error.message)
        }
        return try await scanned(.container(registration), phoneId: phoneId)
    }

    public func containers(phoneId: String) async throws(PhoneError) -> [ContainerSummary] {
        _ = try await device.phone(phoneId)
        let held = try await device.store.containerTokens(phoneId: phoneId)
        return try await device.store.containers(phoneId: phoneId).map { ContainerSummary($0, tokens: held) }
    }

    /// `settled` hears when the registration has ended or waits to try again. The passphrase is
    /// signed (and sent, where the code says so), never kept.
    func register(_ registration: ContainerRegistration, passphrase: String?, phoneId: String, settled: AsyncStream<Void>.Continuation) async {
        defer { settled.finish() }
        do throws(PhoneError) {
            let phone = try await device.phone(phoneId)
            let key = ContainerKey.generate()
            let form: ContainerRequests.Fields
            do { form = try ContainerRequests.finalize(registration, key: key, device: Self.device(phone), passphrase: passphrase) } catch {
                throw .crypto(error.message)
            }
            let answer = try await self.registration(
                ContainerEndpoint.finalize.url(on: registration.serverURL), form: form, sslVerify: registration.sslVerify, phoneId: phoneId,
                settled: settled)
            try PrivacyIDEAExchanges.requireAccepted(
                answer, by: PrivacyIDEAAnswers.succeeded, else: "privacyIDEA did not register the container \(registration.serial)")
            let origin = Enrolment.container(registration).origin
            try await device.store.keep(
                ContainerRecord(
                    phoneId: phoneId, serial: registration.serial, issuer: registration.issuer, serverURL: registration.serverURL.absoluteString,
                    origin: origin, sslVerify: registration.sslVerify, signingKey: key.raw, registeredAt: device.now(), syncedAt: nil))
            await announceContainers(phoneId)
            change(phoneId) { $0.registered() }
        } catch {
            change(phoneId) { $0.registered(failing: error.flowError) }
            return
        }
        _ = try? await synchronize(phoneId: phoneId, serial: registration.serial)
    }

    /// "Sync now": the container's tokens as privacyIDEA has them. An answer that does not
    /// decrypt, or is for another container, changes nothing; a token that cannot be added is
    /// named with why, and the others still are.
    public func synchronize(phoneId: String, serial: String) async throws(PhoneError) -> ContainerSynchronized {
        // one at a time a container: a second would list tokens the first has not yet kept, and
        // privacyIDEA would give them new secrets again; asked meanwhile, it is the running one's
        let key = phoneId + "\u{1F}" + serial
        if let underWay = syncsUnderWay[key] { return try await underWay.value.get() }
        let sync = Task { () async -> Result<ContainerSynchronized, PhoneError> in
            do throws(PhoneError) { return .success(try await self.synchronizeNow(phoneId: phoneId, serial: serial)) } catch {
                return .failure(error)
            }
        }
        syncsUnderWay[key] = sync
        defer { syncsUnderWay[key] = nil }
        return try await sync.value.get()
    }

    private func synchronizeNow(phoneId: String, serial: String) async throws(PhoneError) -> ContainerSynchronized {
        let container = try await held(serial, phoneId: phoneId)
        let holding = try await device.store.containerTokens(phoneId: phoneId).filter { $0.container == serial }
        let answerKey = ContainerSyncKey()
        let reply = try await exchange(.synchronize, container) { challenge throws(PrivacyIDEAError) in
            try ContainerRequests.synchronize(
                serial: serial, on: container.server, challenge: challenge,
                tokens: holding.map { .init(serial: $0.serial, tokentype: $0.tokentype) }, key: container.key, answerKey: answerKey,
                device: container.device)
        }
        let sync = try Self.checked { () throws(PrivacyIDEAError) in
            try ContainerSync(
                opened: try answerKey.open(try PrivacyIDEAAnswers.sealedContainer(reply)), serial: serial, held: holding.map(\.serial))
        }
        let record = container.record

        var outcome = ContainerSynchronized(container: ContainerSummary(record, tokens: holding), kept: sync.keep)
        for url in sync.add {
            do throws(PhoneError) {
                outcome.added.append(try await add(url, to: record, replacing: holding))
            } catch {
                outcome.failed.append(ContainerSynchronized.Failure(serial: ContainerSync.serial(of: url), error: error.flowError))
            }
        }
        for token in holding where sync.remove.contains(token.serial) {
            if let account = try await device.store.release(token) { device.tell(phoneId, .deleted, account.account) }
            outcome.removed.append(token.serial)
        }
        try await device.store.noteSynced(phoneId: phoneId, serial: serial, at: device.now())
        if !outcome.removed.isEmpty || !outcome.added.isEmpty { await announceTokens(phoneId) }
        let all = try await containers(phoneId: phoneId)
        device.screen.send(.containers(all), to: phoneId)
        outcome.container = all.first { $0.serial == serial } ?? outcome.container
        return outcome
    }

    /// The container handed to another phone, as privacyIDEA's app does it (`/container/rollover`,
    /// which privacyIDEA's `container_client_rollover` policy allows): privacyIDEA answers a new
    /// registration code for the other phone to scan. This phone's copy works until that phone
    /// registers, then privacyIDEA refuses its signature.
    public func rollover(phoneId: String, serial: String) async throws(PhoneError) -> ContainerRollover {
        let container = try await held(serial, phoneId: phoneId)
        let answer = try await exchange(.rollover, container) { challenge throws(PrivacyIDEAError) in
            try ContainerRequests.signed(
                .rollover, serial: serial, on: container.server, challenge: challenge, key: container.key, device: container.device)
        }
        let code = try Self.checked { () throws(PrivacyIDEAError) in try PrivacyIDEAAnswers.containerCode(answer) }
        guard (try? ContainerRegistration(text: code, now: device.now()))?.serial == serial else {
            throw .privacyIDEARefused("privacyIDEA's rollover answered no registration code for \(serial)")
        }
        return ContainerRollover(serial: serial, code: code)
    }

    /// Unregisters the container from the phone's side (`/container/register/terminate/client`):
    /// it leaves the phone, and its tokens stay, as privacyIDEA keeps them.
    public func unregister(phoneId: String, serial: String) async throws(PhoneError) {
        let container = try await held(serial, phoneId: phoneId)
        let answer = try await exchange(.terminate, container) { challenge throws(PrivacyIDEAError) in
            try ContainerRequests.signed(
                .terminate, serial: serial, on: container.server, challenge: challenge, key: container.key, device: container.device)
        }
        try PrivacyIDEAExchanges.requireAccepted(
            answer, by: PrivacyIDEAAnswers.succeeded, else: "privacyIDEA did not unregister the container \(serial)")
        try await device.store.forgetContainer(phoneId: phoneId, serial: serial)
        await announceContainers(phoneId)
    }

    /// A container of this phone, ready to sign.
    struct HeldContainer {
        var record: ContainerRecord
        var server: URL
        var key: ContainerKey
        var device: ContainerRequests.Device
    }

    private func held(_ serial: String, phoneId: String) async throws(PhoneError) -> HeldContainer {
        let phone = try await device.phone(phoneId)
        guard let record = try await device.store.container(phoneId: phoneId, serial: serial) else { throw .unknownContainer(serial) }
        guard let server = URL(string: record.serverURL) else { throw .storageFailed }
        let key: ContainerKey
        do { key = try ContainerKey(raw: record.signingKey) } catch { throw .crypto(error.message) }
        return HeldContainer(record: record, server: server, key: key, device: Self.device(phone))
    }

    /// A challenge bound to `endpoint`, then the request `signing` makes of it, sent there.
    private func exchange(
        _ endpoint: ContainerEndpoint, _ container: HeldContainer,
        signing: (ContainerRequests.Challenge) throws(PrivacyIDEAError) -> ContainerRequests.Fields
    ) async throws(PhoneError) -> Data {
        let (record, server) = (container.record, container.server)
        let asked = try await exchanges.send(
            "POST", ContainerEndpoint.challenge.url(on: server), form: ContainerRequests.challenge(serial: record.serial, for: endpoint, on: server),
            sslVerify: record.sslVerify, phoneId: record.phoneId)
        let form = try Self.checked { () throws(PrivacyIDEAError) in try signing(try PrivacyIDEAAnswers.containerChallenge(asked)) }
        return try await exchanges.send("POST", endpoint.url(on: server), form: form, sslVerify: record.sslVerify, phoneId: record.phoneId)
    }

    /// Tells the phone's screens its containers after a change.
    func announceContainers(_ phoneId: String) async {
        if let containers = try? await containers(phoneId: phoneId) { device.screen.send(.containers(containers), to: phoneId) }
    }

    /// A token privacyIDEA added: a push token registered with it, or an OTP account from its
    /// key URI; one the container held before (a rollover's new secret) is replaced.
    private func add(_ url: String, to container: ContainerRecord, replacing held: [ContainerTokenRecord]) async throws(PhoneError) -> String {
        let phoneId = container.phoneId
        let kept: ContainerTokenRecord
        if let enrolment = try? PushEnrolment(text: url) {
            // the container's server was trusted, not any other a token of it might name
            guard enrolment.origin == container.origin else {
                throw PhoneError(
                    .badGateway, "CONTAINER_TOKEN_FOREIGN",
                    "the push token \(enrolment.serial) registers at \(enrolment.origin), not the container's server")
            }
            let token = try await enrol(enrolment, phoneId: phoneId, settled: nil)
            kept = ContainerTokenRecord(phoneId: phoneId, container: container.serial, serial: token.serial, tokentype: "push", otpAccountId: nil)
        } else {
            let uri: OTPAuthURI
            do { uri = try OTPAuthURI(parsing: url) } catch { throw PhoneError(.badGateway, error.code, error.message) }
            guard let serial = ContainerSync.serial(of: url) else { throw .privacyIDEARefused("a token privacyIDEA added names no serial") }
            if let before = held.first(where: { $0.serial == serial }), let replaced = try await device.store.release(before) {
                device.tell(phoneId, .deleted, replaced.account)
            }
            let record = OTPAccountRecord(id: UUID.random().uuidString.lowercased(), phoneId: phoneId, uri: uri, createdAt: device.now())
            let account = try await device.store.insert(record) ?? record
            kept = ContainerTokenRecord(
                phoneId: phoneId, container: container.serial, serial: serial, tokentype: uri.generator.moving.tokentype, otpAccountId: account.id)
            device.tell(phoneId, .imported, account.account)
        }
        try await device.store.hold(kept)
        return kept.serial
    }

    /// What privacyIDEA answered, read: its refusal (or an answer that is not its protocol's) is
    /// `PRIVACYIDEA_REFUSED`, as for push tokens; an answer the phone cannot open keeps its own code.
    private static func checked<T>(_ read: () throws(PrivacyIDEAError) -> T) throws(PhoneError) -> T {
        do { return try read() } catch {
            throw error.code == PrivacyIDEAError.syncRefused ? PhoneError(.badGateway, error.code, error.message) : .privacyIDEARefused(error.message)
        }
    }

    /// What privacyIDEA records as the container's device.
    static func device(_ phone: PhoneRecord) -> ContainerRequests.Device { .init(brand: "AuthPhone", model: phone.name) }
}

extension OTPGenerator.Moving {
    /// privacyIDEA's name for a token that moves like this.
    var tokentype: String {
        switch self {
        case .time: "totp"
        case .counter: "hotp"
        }
    }
}

extension PhoneError {
    static func unknownContainer(_ serial: String) -> PhoneError {
        PhoneError(.notFound, "UNKNOWN_CONTAINER", "this phone has no privacyIDEA container \(serial)")
    }
}
