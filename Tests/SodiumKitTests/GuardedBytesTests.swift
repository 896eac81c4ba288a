import Foundation
import Testing

@testable import SodiumKit

@Suite struct GuardedBytesTests {
    @Test func resetZeroesTheSecret() throws {
        let secret = try GuardedBytes(copying: Array("260418".utf8))
        #expect(secret.count == 6)
        #expect(!secret.isZeroed)
        #expect(secret.withBytes { Array($0) } == Array("260418".utf8))
        secret.reset()
        #expect(secret.isZeroed)
        #expect(secret.count == 0)
        #expect(secret.withBytes { $0.count } == 0)
    }

    @Test func aSlotGoesBackZeroedAndTheNextSecretTakesIt() throws {
        let slots = GuardedSlots(slotCapacity: 64, keep: 2)
        var first: GuardedBytes? = try GuardedBytes(copying: Array("260418".utf8), slots: slots)
        let firstEnd = try #require(first).end
        first = nil
        #expect(slots.waitingCount == 1)

        let second = try GuardedBytes(copying: [], slots: slots)
        #expect(second.end == firstEnd)
        #expect(slots.waitingCount == 0)
        #expect(second.isZeroed)
    }

    @Test func aResetSecretGoesBackAsWell() throws {
        let slots = GuardedSlots(slotCapacity: 64, keep: 2)
        var secret: GuardedBytes? = try GuardedBytes(copying: Array("918273".utf8), slots: slots)
        secret?.reset()
        let end = try #require(secret).end
        secret = nil
        let next = try GuardedBytes(copying: Array("1".utf8), slots: slots)
        #expect(next.end == end)
        #expect(next.withBytes { Array($0) } == Array("1".utf8))
    }

    @Test func onlyAFewSlotsAreKeptAndALongSecretIsNotKept() throws {
        let slots = GuardedSlots(slotCapacity: 64, keep: 2)
        var secrets: [GuardedBytes] = try (0..<3).map { _ in try GuardedBytes(copying: Array("260418".utf8), slots: slots) }
        secrets.removeAll()
        #expect(slots.waitingCount == 2)

        var long: GuardedBytes? = try GuardedBytes(copying: [UInt8](repeating: 7, count: 65), slots: slots)
        #expect(long?.withBytes { Array($0) } == [UInt8](repeating: 7, count: 65))
        long = nil
        #expect(slots.waitingCount == 2)
    }

    /// The secret's last byte is the one before a guard page, so a read past it faults, as it
    /// did when each secret had a buffer of exactly its own size.
    @Test(arguments: [0, 1, 6, 64, 65, 300])
    func theSecretEndsWhereAGuardPageBegins(length: Int) throws {
        let slots = GuardedSlots(slotCapacity: 64, keep: 2)
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        let secret = try GuardedBytes(copying: bytes, slots: slots)
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        let end = secret.end
        #expect(Int(bitPattern: end) % pageSize == 0)
        #expect(secret.withBytes { buffer in buffer.baseAddress! + buffer.count == end && Array(buffer) == bytes })
    }
}
