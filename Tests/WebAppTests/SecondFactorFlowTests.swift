import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import TestDoubles
import Testing
import WebApp

/// CHANGE_PIN, ADD_BIOMETRICS, REMOVE_BIOMETRICS, HEADLESS_UPGRADE and the biometric rules of
/// docs/behaviour.md#second-factor-management on a live server, with a scripted phone.
@Suite(.timeLimit(.minutes(2))) struct SecondFactorFlowTests {
    static let pin = "260418"
    static let newPin = "739105"

    /// Starts one of the phone's own flows and returns its first settled update.
    static func startFlow(_ client: some TestClientProtocol, _ screen: inout Screen, phoneId: String, _ type: FlowType) async throws -> Flow {
        let answer = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": type.rawValue])
        #expect(answer.status == .accepted, "\(String(decoding: answer.body, as: UTF8.self))")
        return try await screen.settledFlow()
    }

    static func settings(_ client: some TestClientProtocol, phoneId: String, _ change: [String: Any]) async throws -> PhoneDetail {
        let answer = try await client.send(.put, "/api/phones/\(phoneId)/settings", json: change)
        #expect(answer.status == .ok, "\(String(decoding: answer.body, as: UTF8.self))")
        return try answer.decode(PhoneDetail.self)
    }

    /// A login up to its VERIFY_SECOND_FACTOR.
    static func loginUntilVerify(_ client: some TestClientProtocol, _ screen: inout Screen, phoneId: String) async throws -> (Flow, String) {
        let session = try await client.startSession("login", user: "alice")
        _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
        _ = try await screen.settledFlow()
        try await screen.send(["action": "confirmSession"])
        return (try await screen.settledFlow(), session.id)
    }

    static func addBiometrics(_ client: some TestClientProtocol, _ screen: inout Screen, phoneId: String) async throws {
        _ = try await startFlow(client, &screen, phoneId: phoneId, .addBiometrics)
        try await screen.send(["action": "inputSecondFactor", "pin": pin])
        _ = try await screen.settledFlow()
        try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
        #expect(try await screen.settledFlow().state == .done)
    }

    @Test func changePinVerifiesTheOldThenSetsTheNew() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            var flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .changePin)
            #expect(flow.type == .changePin)
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(flow.secondFactorAccount?.failedAttempts == 0)
            #expect(flow.session == nil)  // seed 001: the phone's own flows carry no session object
            let sessionId = try await client.latestBackendSession().id
            #expect(try await client.backendSession(sessionId).status == .confirmed)
            // only one flow at a time
            let second = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "CHANGE_PIN"])
            #expect(second.status == .conflict)
            #expect(second.errorCode == "FLOW_ACTIVE")

            try await screen.send(["action": "inputSecondFactor", "pin": "111000"])
            flow = try await screen.settledFlow()
            #expect(flow.previousInteractionResult?.type == .pinFail)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .setSecondFactor)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
            // the wrong attempt before it no longer counts once the PIN is changed
            try await screen.send(["action": "inputSecondFactor", "pin": "123456"])
            #expect(try await screen.next().error?.code == "PIN_TOO_COMMON")
            try await screen.send(["action": "inputSecondFactor", "pin": Self.newPin])
            flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            #expect(flow.secondFactorAccount?.failedAttempts == 0)
            #expect(try await client.backendSession(sessionId).status == .completed)

            // the old PIN is wrong now, the new one right
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().previousInteractionResult?.type == .pinFail)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.newPin])
            #expect(try await screen.settledFlow().state == .done)
        }
    }

    /// The Nevis change (docs/behaviour.md#pin-change-both-ways): old and new together; recoverable errors ask again, too many wrong old PINs lock.
    @Test func theNevisPinChange() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            _ = try await Self.settings(client, phoneId: phoneId, ["pinChangeStyle": "nevis"])
            var flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .changePin)
            #expect(flow.currentInteraction?.type == .setSecondFactor)
            let refusals: [([String: Any], String)] = [
                (["pin": Self.newPin], "MISSING_FIELD"),
                (["pin": Self.pin, "oldPin": Self.pin], "OLD_PIN_EQUALS_NEW_PIN"),
                (["pin": "12", "oldPin": Self.pin], "INVALID_PIN_FORMAT"),
                (["pin": "111111", "oldPin": Self.pin], "PIN_TOO_COMMON"),
            ]
            for (fields, code) in refusals {
                try await screen.send(fields.merging(["action": "inputSecondFactor"]) { $1 })
                #expect(try await screen.next().error?.code == code)
            }
            try await screen.send(["action": "inputSecondFactor", "pin": Self.newPin, "oldPin": "111000"])
            flow = try await screen.settledFlow()
            #expect(flow.state == .waitForInput)
            #expect(flow.previousInteractionResult?.type == .pinFail)
            #expect(flow.secondFactorAccount?.failedAttempts == 1)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.newPin, "oldPin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)

            // locked: three wrong old PINs end it
            _ = try await Self.startFlow(client, &screen, phoneId: phoneId, .changePin)
            for _ in 1...3 {
                try await screen.send(["action": "inputSecondFactor", "pin": "402913", "oldPin": "111000"])
                flow = try await screen.settledFlow()
            }
            #expect(flow.state == .error)
            #expect(flow.error?.code == "PIN_LOCKED")
        }
    }

    @Test func biometricsAddedThenUsedThenInvalidatedByANewFingerprint() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            var detail = try await client.phoneDetail(phoneId)
            #expect(detail.biometrics.canEnableBiometrics && !detail.biometrics.hasEnabledBiometrics)
            // not offered before they are added
            var (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
            try await screen.send(["action": "cancel"])
            _ = try await screen.settledFlow()

            let removeFirst = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "REMOVE_BIOMETRICS"])
            #expect(removeFirst.errorCode == "BIOMETRICS_NOT_ENABLED")
            flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .addBiometrics)
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            #expect(try await screen.next().error?.code == "FACTOR_NOT_OFFERED")
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .setSecondFactor)
            #expect(flow.currentInteraction?.secondFactorInfo == .biometricsOnly)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "noMatch"])
            #expect(try await screen.next().error?.code == "BIOMETRIC_NOT_RECOGNISED")
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            #expect(try await screen.settledFlow().state == .done)
            detail = try await client.phoneDetail(phoneId)
            #expect(detail.biometrics.hasEnabledBiometrics)

            // a login with the biometric
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            #expect(flow.previousInteractionResult?.inputTypes == [.biometrics])

            // another fingerprint: the key is invalid, found out at its next use
            let enrolled = try await client.send(.post, "/api/phones/\(phoneId)/sensor/features")
            #expect(try enrolled.decode(PhoneDetail.self).biometrics.enrolledFeatures == 2)
            var sessionId: String
            (flow, sessionId) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            flow = try await screen.settledFlow()
            #expect(flow.state == .waitForInput)
            #expect(flow.previousInteractionResult?.type == .biometricsRemoved)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
            #expect(try await client.backendSession(sessionId).status == .confirmed)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)
            #expect(try await client.phoneDetail(phoneId).biometrics.hasEnabledBiometrics == false)
        }
    }

    @Test(arguments: [false, true])
    func aBiometricClearsPinFailuresUnlessDisallowed(disallowed: Bool) async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            try await Self.addBiometrics(client, &screen, phoneId: phoneId)
            _ = try await Self.settings(client, phoneId: phoneId, ["disallowPinChangeWithBiometric": disallowed])
            var (flow, sessionId) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            for _ in 1...3 {
                try await screen.send(["action": "inputSecondFactor", "pin": "111000"])
                flow = try await screen.settledFlow()
            }
            // seed 000: a biometric unblocks the PIN, so the PIN that blocks it leaves the biometric alone
            #expect(flow.state == .waitForInput)
            #expect(flow.previousInteractionResult?.type == .pinFail)
            #expect(flow.secondFactorAccount?.isBlocked == true)
            #expect(flow.currentInteraction?.secondFactorInfo == .biometricsOnly)
            #expect(try await client.backendSession(sessionId).status == .confirmed)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.next().error?.code == "FACTOR_NOT_OFFERED")
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            #expect(try await client.backendSession(sessionId).status == .loggedin)
            #expect(flow.secondFactorAccount?.isBlocked == disallowed)
            #expect(flow.secondFactorAccount?.failedAttempts == (disallowed ? 3 : 0))

            // the next login: the PIN again when the biometric cleared it, else the biometric alone
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == (disallowed ? .biometricsOnly : .pinOrBiometrics))
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            #expect(try await screen.settledFlow().state == .done)

            // CHANGE_PIN: verified with the biometric only when allowed
            flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .changePin)
            if disallowed {
                #expect(flow.state == .error)
                #expect(flow.error?.code == "PIN_BLOCKED")
            } else {
                #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
            }
        }
    }

    @Test func legacyOrderAndRemoval() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            _ = try await Self.settings(client, phoneId: phoneId, ["legacyBioAddFlow": true])
            var flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .addBiometrics)
            #expect(flow.currentInteraction?.type == .setSecondFactor)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(try await client.phoneDetail(phoneId).biometrics.hasEnabledBiometrics == false)  // not before the PIN
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)
            #expect(try await client.phoneDetail(phoneId).biometrics.hasEnabledBiometrics)

            flow = try await Self.startFlow(client, &screen, phoneId: phoneId, .removeBiometrics)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            #expect(flow.session == nil)
            #expect(try await client.latestBackendSession().status == .completed)
            #expect(try await client.phoneDetail(phoneId).biometrics.hasEnabledBiometrics == false)
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
        }
    }

    /// docs/behaviour.md#biometrics: after maxNumberSecondFactorWithoutPIN biometric verifications, or
    /// maxTimeSecondFactorWithoutPIN after the last PIN, the PIN is asked again.
    @Test func biometricsStopAtThePinLessLimits() async throws {
        let clock = TestClock(Date())
        var configuration = testConfiguration()
        configuration.now = { clock.now() }
        try await withEnrolledPhone(configuration) { client, screen, phoneId in
            try await Self.addBiometrics(client, &screen, phoneId: phoneId)
            _ = try await Self.settings(client, phoneId: phoneId, ["maxNumberSecondFactorWithoutPIN": 2, "maxTimeSecondFactorWithoutPIN": 3600])
            for _ in 1...2 {
                let (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
                #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
                try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
                _ = try await screen.settledFlow()
            }
            var (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            _ = try await screen.settledFlow()
            #expect(try await client.phoneDetail(phoneId).biometrics.verificationsSinceLastPin == 0)

            clock.advance(3599)
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
            try await screen.send(["action": "cancel"])
            _ = try await screen.settledFlow()
            clock.advance(1)
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)

            // biometricsDisabled turns them off whatever the counts
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            _ = try await screen.settledFlow()
            _ = try await Self.settings(client, phoneId: phoneId, ["biometricsDisabled": true])
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
        }
    }

    @Test func headlessUpgradeRotatesTheAccountKey() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let session = try await client.startSession("upgrade", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            var flow = try await screen.nextFlow()
            #expect(flow.type == .headlessUpgrade)
            #expect(flow.state == .processing)
            #expect(flow.currentInteraction == nil)
            flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            let done = try await client.backendSession(session.id)
            #expect(done.status == .completed)
            #expect(done.accountId == (try await client.phoneDetail(phoneId).accounts.first?.id))
            // the new key logs in
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)
        }
    }

    /// The SDK's guarantee (docs/behaviour.md#flows): after a PROCESSING update comes WAIT_FOR_INPUT, DONE or ERROR, never
    /// another PROCESSING; and once an interaction has a result, every later update carries one.
    @Test func processingIsAlwaysFollowedByAnAnswer() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            var updates: [Flow] = []
            func record(until done: (Flow) -> Bool) async throws {
                while true {
                    let flow = try await screen.nextFlow()
                    updates.append(flow)
                    if done(flow) { return }
                }
            }
            let answered: (Flow) -> Bool = { $0.state != .processing }
            _ = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "ADD_BIOMETRICS"])
            try await record(until: answered)
            try await screen.send(["action": "inputSecondFactor", "pin": "111000"])
            try await record(until: answered)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            try await record(until: answered)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            try await record(until: \.state.isFinal)
            let upgrade = try await client.startSession("upgrade", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": upgrade.qrText])
            try await record(until: \.state.isFinal)
            _ = try await client.send(.post, "/api/phones/\(phoneId)/sensor/features", json: [:])
            _ = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "REMOVE_BIOMETRICS"])
            try await record(until: answered)
            try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
            try await record(until: answered)
            #expect(updates.last?.previousInteractionResult?.type == .biometricsRemoved)
            try await screen.send(["action": "cancel"])
            try await record(until: \.state.isFinal)

            #expect(updates.count >= 12)
            for (before, after) in zip(updates, updates.dropFirst()) where before.id == after.id {
                if before.state == .processing { #expect(after.state != .processing, "\(before.type): PROCESSING twice") }
                if before.previousInteractionResult != nil { #expect(after.previousInteractionResult != nil) }
            }
            #expect(updates.map(\.type).contains(.headlessUpgrade))
            #expect(updates.last?.error == .userCanceled)
        }
    }

    @Test func settingsAreCheckedAndRemovingAllAccountsResetsThePhone() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let refusals: [([String: Any], String)] = [
                (["pinLength": 4], "PIN_SET"), (["maxNumberSecondFactorWithoutPIN": -1], "INVALID_FIELD"),
                (["pinChangeStyle": "other"], "MALFORMED_JSON"), (["biometricsDisabled": "yes"], "MALFORMED_JSON"),
            ]
            for (body, code) in refusals {
                let answer = try await client.send(.put, "/api/phones/\(phoneId)/settings", json: body)
                #expect(answer.errorCode == code, "\(body)")
            }
            #expect(try await client.phoneDetail(phoneId).settings.pinLength == 6)
            let before = try await client.phoneDetail(phoneId)

            var (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            for _ in 1...3 {
                try await screen.send(["action": "inputSecondFactor", "pin": "111000"])
                flow = try await screen.settledFlow()
            }
            #expect(flow.error?.code == "PIN_BLOCKED")
            let reset = try await client.send(.delete, "/api/phones/\(phoneId)/accounts").decode(PhoneDetail.self)
            #expect(reset.accounts.isEmpty && !reset.hasPin && reset.deviceId != before.deviceId)
            let shorter = try await Self.settings(client, phoneId: phoneId, ["pinLength": 4])
            #expect(shorter.settings.pinLength == 4)
            try await enrol(client, &screen, phoneId: phoneId, user: "alice", pin: "2604")
            (flow, _) = try await Self.loginUntilVerify(client, &screen, phoneId: phoneId)
            #expect(flow.secondFactorAccount?.failedAttempts == 0)
        }
    }
}
