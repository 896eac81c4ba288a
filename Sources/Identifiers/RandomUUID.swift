import Foundation

extension UUID {
    /// A version 4 UUID from the system's generator (`getrandom`). Foundation's `UUID()` opens,
    /// reads and closes /dev/urandom for each one on Linux: four system calls an id, and a login
    /// makes several (its session, its push, the push's log entry, the phone's flow).
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bits = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bits) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
            return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
        }
    }
}
