import Foundation

/// At most `count` bytes from the start of a file, whatever its size (`/dev/zero` included): the
/// readers of passphrase and export files refuse a file too large without reading it all.
public func filePrefix(_ path: String, upTo count: Int) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return try? handle.read(upToCount: count)
}
