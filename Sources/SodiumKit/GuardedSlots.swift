import CSodium
import Synchronization

/// Guarded buffers kept for reuse by `GuardedBytes`. `sodium_malloc` maps a region between guard
/// pages and locks it, and `sodium_free` unmaps it; each map, each unmap and each protection
/// lowered flushes the TLB of every core running the server. A PIN lives for one input, so it
/// takes a slot from here and its slot comes back zeroed, still locked and between its guard
/// pages. A slot waiting here holds nothing secret, so it waits readable and writable, and a
/// PIN costs no map, lock, unlock or unmap at all.
final class GuardedSlots: Sendable {
    /// A buffer from `sodium_malloc(capacity)`: its last byte is the one before the guard page.
    struct Slot: @unchecked Sendable {  // the memory is owned by whoever holds the slot
        let pointer: UnsafeMutableRawPointer
        let capacity: Int
    }

    /// The bytes of a slot: a PIN or a passphrase; a longer secret gets a buffer of its own.
    let slotCapacity: Int
    /// The most slots kept waiting: beyond that, a returned one is freed.
    let keep: Int
    private let waiting = Mutex<[Slot]>([])

    static let shared = GuardedSlots(slotCapacity: 256, keep: 32)

    init(slotCapacity: Int, keep: Int) {
        self.slotCapacity = slotCapacity
        self.keep = keep
    }

    /// A zeroed, readable and writable buffer of at least `count` bytes.
    func take(atLeast count: Int) throws(SodiumError) -> Slot {
        if count <= slotCapacity, let slot = waiting.withLock({ $0.popLast() }) { return slot }
        let capacity = max(count, slotCapacity, 1)
        try Sodium.ready()
        guard let pointer = sodium_malloc(capacity) else { throw .outOfMemory }
        sodium_memzero(pointer, capacity)  // sodium_malloc fills it with a marker byte
        return Slot(pointer: pointer, capacity: capacity)
    }

    /// Takes back a zeroed, readable and writable slot: kept for the next secret, or freed.
    func giveBack(_ slot: Slot) {
        let kept =
            slot.capacity == slotCapacity
            && waiting.withLock { slots in
                guard slots.count < keep else { return false }
                slots.append(slot)
                return true
            }
        if !kept { sodium_free(slot.pointer) }
    }

    var waitingCount: Int { waiting.withLock { $0.count } }
}
