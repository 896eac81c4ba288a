import CSodium
import Foundation

/// Secret bytes (a PIN) in libsodium guarded memory: kept out of swap, surrounded
/// by guard pages, no access at all except inside `withBytes`, and zeroed when reset or freed.
/// A PIN or key held any other way could linger in the heap after use (NIST 800-63B §5.1.8.1).
public final class GuardedBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    private let capacity: Int
    private var length: Int
    private let lock = NSLock()

    /// Takes ownership of a copy of `bytes`, byte by byte, so no other copy is made on the way
    /// (a String's `utf8` goes straight in); the caller should zero its own copy where it can.
    public init(copying bytes: some Collection<UInt8>) throws(SodiumError) {
        try Sodium.ready()
        capacity = max(bytes.count, 1)
        guard let p = sodium_malloc(capacity) else { throw .outOfMemory }
        pointer = p
        length = bytes.count
        for (offset, byte) in bytes.enumerated() { p.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        sodium_mprotect_noaccess(p)
    }

    deinit {
        sodium_mprotect_readwrite(pointer)
        sodium_free(pointer)  // zeroes before releasing
    }

    public var count: Int { lock.withLock { length } }

    /// The only way to read the secret; memory is readable for the duration of `body` alone.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        sodium_mprotect_readonly(pointer)
        defer { sodium_mprotect_noaccess(pointer) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: length))
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

    /// Zeroes the secret and its length; the buffer stays allocated until freed.
    public func reset() {
        lock.withLock {
            sodium_mprotect_readwrite(pointer)
            sodium_memzero(pointer, capacity)
            sodium_mprotect_noaccess(pointer)
            length = 0
        }
    }

    /// True when every byte of the buffer is zero (after `reset`): lets tests check the wipe.
    public var isZeroed: Bool {
        lock.withLock {
            sodium_mprotect_readonly(pointer)
            defer { sodium_mprotect_noaccess(pointer) }
            return sodium_is_zero(pointer.assumingMemoryBound(to: UInt8.self), capacity) == 1
        }
    }
}
