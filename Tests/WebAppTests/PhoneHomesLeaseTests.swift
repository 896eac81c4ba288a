import Foundation
import Phone
import SodiumKit
import Synchronization
import TestDoubles
import Testing

@testable import WebApp

/// An instance that missed its lease (paused, or cut off from the database) while another took
/// some of its phones: alive again, it runs none of those from memory. It keeps the phones the
/// database still gives it and forgets the flows of the others, whether its next beat or a
/// request for one of them comes first. Times are given, not waited for.
@Suite struct PhoneHomesLeaseTests {
    /// Two instances on one database, A home to two phones, and what A forgot.
    final class Cluster: Sendable {
        let clock = TestClock()
        let forgotten: Heard
        let a: PhoneHomes
        let b: PhoneHomes
        let taken: String
        let kept: String

        init(on engine: TestEngine) async throws {
            let store = try await engine.open(PhoneStore.self)
            let phones = PhoneService(store: store, configuration: .init(allowedBackends: { [] }, pinDerivation: .init(profile: .fast)))
            (taken, kept) = (try await phones.createPhone(name: "Taken").id, try await phones.createPhone(name: "Kept").id)
            let clock = clock
            let forgot = Heard()
            forgotten = forgot
            a = PhoneHomes(store: store, url: { "http://a:1" }, now: { clock.now() }) { ids in forgot.ids.withLock { $0.append(ids) } }
            b = PhoneHomes(store: try await engine.otherInstance(of: store), url: { "http://b:1" }, now: { clock.now() }) { _ in }
            try await a.beatOnce()
            try await b.beatOnce()
            #expect(try await a.home(of: taken) == .here)
            #expect(try await a.home(of: kept) == .here)
            // A says nothing for 11 s (its lease was 10) while B goes on, and B takes one of its phones
            clock.advance(11)
            try await b.beatOnce()
            #expect(try await b.home(of: taken) == .here)
        }
    }

    @Test(arguments: TestEngine.available) func itsNextBeatKeepsOnlyThePhonesTheDatabaseStillGivesIt(on engine: TestEngine) async throws {
        let cluster = try await Cluster(on: engine)
        let screenEnded = Heard()
        let screen = cluster.a.departures.forward(cluster.taken) { screenEnded.ids.withLock { $0.append([cluster.taken]) } }
        defer { screen.cancel() }

        #expect(try await cluster.a.beatOnce() == [cluster.taken])
        #expect(cluster.forgotten.ids.withLock { $0 } == [[cluster.taken]])
        #expect(screenEnded.ids.withLock { $0 } == [[cluster.taken]], "a screen of the taken phone open on A is told")
        #expect(try await cluster.a.home(of: cluster.taken) == .elsewhere(instance: cluster.b.instance, url: "http://b:1"))
        #expect(try await cluster.a.home(of: cluster.kept) == .here, "a phone nobody took stays at home")
        #expect(try await cluster.a.beatOnce() == [], "a beat in time asks nothing and loses nothing")
        #expect(cluster.forgotten.ids.withLock { $0 }.count == 1)
    }

    @Test(arguments: TestEngine.available) func aRequestBeforeItsNextBeatFindsThePhoneGoneAndForgetsIt(on engine: TestEngine) async throws {
        let cluster = try await Cluster(on: engine)
        #expect(try await cluster.a.home(of: cluster.taken) == .elsewhere(instance: cluster.b.instance, url: "http://b:1"))
        #expect(cluster.forgotten.ids.withLock { $0 } == [[cluster.taken]])
        #expect(try await cluster.a.beatOnce() == [], "forgotten once")
        #expect(try await cluster.a.home(of: cluster.kept) == .here)
    }
}

/// The phones a test heard of, each time: those an instance forgot, those whose screens were told.
final class Heard: Sendable {
    let ids = Mutex<[Set<String>]>([])
}
