import CSodium

/// A key's secret half on the ordinary heap, zeroed when freed. Account, device and server keys
/// are stored in the databases anyway, so guard pages (an mmap, mprotect on every use and a TLB
/// flush across cores on every free) would protect nothing and cost most of a login's system
/// time; the PIN itself stays in `GuardedBytes`.
public final class SecretBytes: @unchecked Sendable {  // immutable after init
    private let storage: UnsafeMutableRawBufferPointer

    public init(copying bytes: some Collection<UInt8>) {
        storage = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        _ = storage.initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// `count` bytes written by `fill` straight into the wiped buffer (a derived key), so that no
    /// other copy of them is made; a throwing `fill` leaves nothing behind.
    public init<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
        try fill(UnsafeMutableRawBufferPointer(rebasing: storage[..<count]))
    }

    deinit {
        sodium_memzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    public let count: Int

    /// The secret, for the duration of `body`.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[..<count]))
    }
}
