import CSodium
import Foundation

/// Secret bytes (a PIN) in libsodium guarded memory: kept out of swap, surrounded
/// by guard pages, no access at all except inside `withBytes` while it holds a secret, and
/// zeroed when reset or freed. The buffer comes from `GuardedSlots` and goes back there zeroed.
/// A PIN or key held any other way could linger in the heap after use (NIST 800-63B §5.1.8.1).
public final class GuardedBytes: @unchecked Sendable {
    private let slot: GuardedSlots.Slot
    private let slots: GuardedSlots
    private var length: Int
    /// Readable and writable, which only a buffer holding no secret may be (zeroed, or new).
    private var isOpen = true
    private let lock = NSLock()

    /// Takes ownership of a copy of `bytes`, byte by byte, so no other copy is made on the way
    /// (a String's `utf8` goes straight in); the caller should zero its own copy where it can.
    public convenience init(copying bytes: some Collection<UInt8>) throws(SodiumError) {
        try self.init(copying: bytes, slots: .shared)
    }

    init(copying bytes: some Collection<UInt8>, slots: GuardedSlots) throws(SodiumError) {
        self.slots = slots
        slot = try slots.take(atLeast: bytes.count)
        length = bytes.count
        for (offset, byte) in bytes.enumerated() { start.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        close()
    }

    deinit {
        if !isOpen { sodium_mprotect_readwrite(slot.pointer) }
        sodium_memzero(slot.pointer, slot.capacity)
        slots.giveBack(slot)
    }

    public var count: Int { lock.withLock { length } }

    /// Where the secret starts: it is the last `length` bytes of the slot, so that it ends where
    /// the guard page begins and reading past it faults.
    private var start: UnsafeMutableRawPointer { slot.pointer + (slot.capacity - length) }

    private func close() {
        sodium_mprotect_noaccess(slot.pointer)
        isOpen = false
    }

    /// The only way to read the secret; memory is readable for the duration of `body` alone.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        sodium_mprotect_readonly(slot.pointer)
        defer { close() }
        return try body(UnsafeRawBufferPointer(start: start, count: length))
    }

    /// Compares two secrets in constant time without copying either out of guarded memory
    /// (the Nevis PIN change refuses a new PIN equal to the old one).
    public func hasSameBytes(as other: GuardedBytes) -> Bool {
        withBytes { mine in
            other.withBytes { theirs in
                mine.count == theirs.count && (mine.count == 0 || sodium_memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0)
            }
        }
    }

    /// Zeroes the secret and its length; the buffer, holding nothing now, is left open until
    /// it goes back to the slots.
    public func reset() {
        lock.withLock {
            if !isOpen { sodium_mprotect_readwrite(slot.pointer) }
            isOpen = true
            sodium_memzero(slot.pointer, slot.capacity)
            length = 0
        }
    }

    /// True when every byte of the buffer is zero (after `reset`): lets tests check the wipe.
    public var isZeroed: Bool {
        lock.withLock {
            if !isOpen { sodium_mprotect_readonly(slot.pointer) }
            defer { if !isOpen { sodium_mprotect_noaccess(slot.pointer) } }
            return sodium_is_zero(slot.pointer.assumingMemoryBound(to: UInt8.self), slot.capacity) == 1
        }
    }

    /// The address just past the secret (tests check that a guard page starts there).
    var end: UnsafeRawPointer { lock.withLock { UnsafeRawPointer(slot.pointer + slot.capacity) } }
}
