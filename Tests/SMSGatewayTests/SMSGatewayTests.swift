import Faults
import Foundation
import Identifiers
import SMSGateway
import Synchronization
import TestDoubles
import Testing

/// What the phones got.
final class Delivered: Sendable {
    let texts = Mutex<[OutgoingText]>([])
}

/// The gateway's doors lead to one check: every refusal is logged with why and delivers nothing,
/// a text to a number no phone has is logged as undelivered, and the rate window counts only
/// what it let through.
@Suite struct SMSGatewayTests {
    let clock = TestClock()
    let known = try! PhoneNumber(reading: "+447700900001")

    /// A gateway whose phones are one number, keeping what it delivered.
    func makeGateway(
        on engine: TestEngine, rateLimit: Int = 30, faults: FaultInjector? = nil, delivered: Delivered
    ) async throws -> SMSGateway {
        let clock = clock
        let known = known
        return SMSGateway(
            store: try await engine.open(SMSStore.self),
            phones: .init(
                find: { $0 == known ? "phone-1" : nil },
                deliver: { _, text in
                    guard text.to == known else { return nil }
                    delivered.texts.withLock { $0.append(text) }
                    return "phone-1"
                }),
            configuration: .init(rateLimit: rateLimit), now: { clock.now() }, faults: faults, sleep: { _ in })
    }

    /// The basic credentials of the gateway's account.
    func credentials(of gateway: SMSGateway) async throws -> SMSGateway.Credentials {
        let account = try await gateway.account()
        return .init(authorization: "Basic " + Data("\(account.sid):\(account.authToken)".utf8).base64EncodedString())
    }

    func handed(to: String?, from: String? = "privacyIDEA", body: String? = "Your code is 123456") -> SMSGateway.Handed {
        SMSGateway.Handed(text: Result { () throws(SMSError) in try OutgoingText(to: to, from: from, body: body) }, to: to, from: from, body: body)
    }

    @Test(arguments: TestEngine.available) func aTextReachesThePhoneAndIsLogged(on engine: TestEngine) async throws {
        let delivered = Delivered()
        let gateway = try await makeGateway(on: engine, delivered: delivered)
        let credentials = try await credentials(of: gateway)
        let (entry, account) = try await gateway.send(handed(to: "+44 7700 900001"), credentials: credentials, door: .gateway, sender: "10.0.0.7")
        #expect(account == (try await gateway.account()))
        #expect(entry.outcome == .delivered && entry.phoneId == "phone-1" && entry.to == "+447700900001")
        #expect(entry.id.hasPrefix("SM") && entry.id.count == 34)
        #expect(delivered.texts.withLock { $0.map(\.body) } == ["Your code is 123456"])
        #expect(try await gateway.log().map(\.id) == [entry.id])
        #expect(try await gateway.entry(id: entry.id, credentials: credentials, path: "/x").entry == entry)
    }

    @Test(arguments: TestEngine.available) func refusalsDeliverNothingAndSayWhy(on engine: TestEngine) async throws {
        let delivered = Delivered()
        let gateway = try await makeGateway(on: engine, delivered: delivered)
        let credentials = try await credentials(of: gateway)
        let cases: [(SMSGateway.Handed, String, Int, SMSOutcome)] = [
            (handed(to: nil), "RECIPIENT_MISSING", 21604, .refused),
            (handed(to: "0044-abc"), "INVALID_NUMBER", 21211, .refused),
            (handed(to: "+447700900999"), "NUMBER_UNKNOWN", 21211, .undelivered),
            (handed(to: "+447700900001", from: nil), "SENDER_MISSING", 21603, .refused),
            (handed(to: "+447700900001", from: "a sender name too long"), "INVALID_SENDER", 21212, .refused),
            (handed(to: "+447700900001", body: ""), "TEXT_MISSING", 21602, .refused),
            (handed(to: "+447700900001", body: String(repeating: "x", count: 1601)), "TEXT_TOO_LONG", 21617, .refused),
            (handed(to: "+447700900001", body: "bell \u{07}"), "TEXT_UNREADABLE", 70002, .refused),
        ]
        for (request, code, twilio, outcome) in cases {
            await #expect {
                try await gateway.send(request, credentials: credentials, door: .twilio, sender: "10.0.0.7")
            } throws: { error in
                guard let error = error as? SMSError else { return false }
                return error.code == code && error.twilioCode == twilio && error.status == 400
            }
            let logged = try #require(try await gateway.log().first)
            #expect(logged.outcome == outcome && logged.error?.code == code, "\(code)")
        }
        #expect(delivered.texts.withLock { $0.isEmpty })
        // none was counted: the whole window is left for good texts
        #expect(try await gateway.log().count == cases.count)
    }

    @Test(arguments: TestEngine.available) func theRateWindowRefusesPastItsLimitAndCountsNoRefusal(on engine: TestEngine) async throws {
        let delivered = Delivered()
        let gateway = try await makeGateway(on: engine, rateLimit: 2, delivered: delivered)
        let credentials = try await credentials(of: gateway)
        _ = try? await gateway.send(handed(to: "+447700900001", body: ""), credentials: credentials, door: .gateway, sender: "s")
        for _ in 0..<2 { _ = try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s") }
        clock.advance(10)
        await #expect {
            try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s")
        } throws: { error in
            (error as? SMSError).map { $0.status == 429 && $0.twilioCode == 20429 && $0.retryAfter == 50 } ?? false
        }
        clock.advance(51)
        _ = try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s")
        #expect(delivered.texts.withLock { $0.count } == 3)
    }

    @Test(arguments: TestEngine.available) func faultsDropDelayOrFailTexts(on engine: TestEngine) async throws {
        let delivered = Delivered()
        let clock = clock
        let faults = FaultInjector(now: { clock.now() })
        let gateway = try await makeGateway(on: engine, faults: faults, delivered: delivered)
        let credentials = try await credentials(of: gateway)
        _ = try faults.add(target: .sms, kind: .drop, count: 1, lifetime: 60)
        #expect(try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s").entry.outcome == .dropped)
        _ = try faults.add(target: .sms, kind: .status(code: 503, retryAfter: 5), count: 1, lifetime: 60)
        await #expect {
            try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s")
        } throws: { error in
            (error as? SMSError).map { $0.status == 503 && $0.code == "GATEWAY_FAULT" && $0.retryAfter == 5 } ?? false
        }
        #expect(delivered.texts.withLock { $0.isEmpty })
        #expect(
            try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .gateway, sender: "s").entry.outcome == .delivered)
    }

    @Test(arguments: TestEngine.available) func basicCredentialsProveTheAccountAndARefusalIsLogged(on engine: TestEngine) async throws {
        let delivered = Delivered()
        let gateway = try await makeGateway(on: engine, delivered: delivered)
        let account = try await gateway.account()
        #expect(account.sid.hasPrefix("AC") && account.sid.count == 34 && account.authToken.count == 32)
        #expect(try await gateway.account() == account)
        func basic(_ text: String) -> String { "Basic " + Data(text.utf8).base64EncodedString() }
        let right = basic("\(account.sid):\(account.authToken)")
        let wrong: [SMSGateway.Credentials] = [
            .init(authorization: nil), .init(authorization: "Bearer x"), .init(authorization: basic("\(account.sid):nope")),
            .init(authorization: basic("ACx:\(account.authToken)")), .init(authorization: basic(account.sid)), .init(authorization: "Basic !!"),
            .init(authorization: right, account: "AC0000"),
        ]
        for credentials in wrong {
            await #expect {
                try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .twilio, sender: "s")
            } throws: { error in
                (error as? SMSError).map { $0.twilioCode == 20003 && [401, 403].contains($0.status) } ?? false
            }
            #expect(try await gateway.log().first?.outcome == .refused)
        }
        #expect(delivered.texts.withLock { $0.isEmpty })
        #expect(
            try await gateway.send(
                handed(to: "+447700900001"), credentials: .init(authorization: right, account: account.sid), door: .twilio, sender: "s"
            ).entry.outcome == .delivered)
    }

    @Test func theGenericDoorReadsItsPartsByAnyOfTheirNames() throws {
        let text = try OutgoingText(gatewayParameters: ["Phone": "00447700900001", "message": "Code 1234", "sender": "Bank"])
        #expect(text == (try OutgoingText(to: "+447700900001", from: "Bank", body: "Code 1234")))
        #expect((try OutgoingText(gatewayParameters: ["to": "+447700900001", "text": "hi"])).from == OutgoingText.unnamedSender)
        for parameters in [["text": "hi"], ["to": "+447700900001"], ["to": "+447700900001", "phone": "+447700900002", "text": "hi"]] {
            #expect(throws: SMSError.self) { try OutgoingText(gatewayParameters: parameters) }
        }
    }

    @Test func formFieldsDecodeAsSendersEncodeThem() {
        #expect(
            OutgoingText.formFields(Array("To=%2B447700900001&Body=Your+code%3A+12&From=".utf8))?.map { "\($0)=\($1)" } == [
                "To=+447700900001", "Body=Your code: 12", "From=",
            ])
        #expect(OutgoingText.formFields([0xFF, 0xFE]) == nil)
    }

    @Test func twilioResourcesSayWhatBecameOfTheText() async throws {
        let gateway = try await makeGateway(on: .sqlite, delivered: Delivered())
        let credentials = try await credentials(of: gateway)
        let entry = try await gateway.send(handed(to: "+447700900001"), credentials: credentials, door: .twilio, sender: "s").entry
        let created = TwilioMessage(entry, account: "AC1", justCreated: true)
        #expect(created.status == "queued" && created.uri == "/2010-04-01/Accounts/AC1/Messages/\(entry.id).json")
        #expect(created.dateCreated == "Fri, 15 Jan 2027 08:00:00 +0000")
        #expect(TwilioMessage(entry, account: "AC1", justCreated: false).status == "delivered")
        #expect(TwilioMessage.segments(String(repeating: "a", count: 160)) == 1)
        #expect(TwilioMessage.segments(String(repeating: "a", count: 161)) == 2)
        #expect(TwilioMessage.segments(String(repeating: "é", count: 71)) == 2)
    }
}
