import Foundation
import TestDoubles
import Testing

@testable import Phone

/// A phone's home among the instances sharing its database: the first instance that serves it
/// takes it, the others are sent there while it lives, and take it over once it is seen dead
/// or has left. Times are given, not waited for.
@Suite struct PhoneHomesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: TestEngine.available) func theFirstInstanceTakesAPhoneAndTheOthersAreSentThere(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let (a, b) = (phone.store, try await engine.otherInstance(of: phone.store))
        try await a.beat(instance: "A", url: "http://a:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)
        try await b.beat(instance: "B", url: "http://b:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)

        #expect(try await b.home(of: id, claimingFor: "B", now: start) == .here)
        #expect(try await a.home(of: id, claimingFor: "A", now: start + 1) == .elsewhere(instance: "B", url: "http://b:1"))
        #expect(try await b.home(of: id, claimingFor: "B", now: start + 2) == .here, "its home keeps it")
    }

    @Test(arguments: TestEngine.available) func aDeadHomesPhonesAreTakenOverAndALeftOnesAtOnce(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (first, second) = (try await phone.newPhone(), try await phone.newPhone())
        let store = phone.store
        try await store.beat(instance: "A", url: "http://a:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)
        try await store.beat(instance: "B", url: "http://b:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)
        #expect(try await store.home(of: first, claimingFor: "B", now: start) == .here)
        #expect(try await store.home(of: second, claimingFor: "B", now: start) == .here)

        // B says nothing more: alive until start + 10, dead after; A goes on saying it lives
        try await store.beat(instance: "A", url: "http://a:1", aliveUntil: start + 20, forgettingDeadBefore: start - 60)
        #expect(try await store.home(of: first, claimingFor: "A", now: start + 9.9) == .elsewhere(instance: "B", url: "http://b:1"))
        #expect(try await store.home(of: first, claimingFor: "A", now: start + 10.1) == .here)
        #expect(try await store.home(of: first, claimingFor: "B", now: start + 10.2) == .elsewhere(instance: "A", url: "http://a:1"))

        try await store.beat(instance: "B", url: "http://b:1", aliveUntil: start + 30, forgettingDeadBefore: start - 60)
        try await store.leave(instance: "B")
        #expect(try await store.home(of: second, claimingFor: "A", now: start + 11) == .here, "a phone of an instance that left")
    }

    @Test(arguments: TestEngine.available) func instancesLongDeadAreForgottenWithTheirHomes(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let store = phone.store
        try await store.beat(instance: "B", url: "http://b:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)
        #expect(try await store.home(of: id, claimingFor: "B", now: start) == .here)
        try await store.beat(instance: "A", url: "http://a:1", aliveUntil: start + 100, forgettingDeadBefore: start + 20)
        let instances = try await store.read { sql in try sql.fetchAll(String.self, "SELECT id FROM instance ORDER BY id", []) }
        #expect(instances == ["A"])
        let homes = try await store.read { sql in try sql.fetchAll(String.self, "SELECT instance FROM phoneHome", []) }
        #expect(homes.isEmpty)
    }

    @Test(arguments: TestEngine.available) func aPhoneThatDoesNotExistIsAnsweredWhereItIsAsked(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        #expect(try await phone.store.home(of: "no-such-phone", claimingFor: "A", now: start) == .here)
        let homes = try await phone.store.read { sql in try sql.fetchAll(String.self, "SELECT phoneId FROM phoneHome", []) }
        #expect(homes.isEmpty)
    }

    @Test(arguments: TestEngine.available) func resettingThePhonesKeepsTheInstances(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        try await phone.store.beat(instance: "A", url: "http://a:1", aliveUntil: start + 10, forgettingDeadBefore: start - 60)
        #expect(try await phone.store.home(of: id, claimingFor: "A", now: start) == .here)
        try await phone.store.erasePhones()
        let instances = try await phone.store.read { sql in try sql.fetchAll(String.self, "SELECT id FROM instance", []) }
        #expect(instances == ["A"])
    }
}
