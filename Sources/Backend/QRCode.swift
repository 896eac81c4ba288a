import CQRencode

/// A QR code's modules, encoded by libqrencode (error correction M, 8-bit mode).
public struct QRCode: Sendable, Equatable {
    public struct EncodingError: Error, Equatable {
        public let message: String
    }

    /// Modules per side.
    public let width: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]

    public init(_ text: String) throws(EncodingError) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw EncodingError(message: "the text could not be encoded as a QR code (too long?)")
        }
        defer { QRcode_free(code) }
        width = Int(code.pointee.width)
        modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width).map { $0 & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// SVG with one rectangle per run of dark modules and a white quiet zone.
    public func svg(moduleSize: Int = 6, quietZone: Int = 4) -> String {
        var path = ""
        path.reserveCapacity(width * width * 4)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < width && isDark(x: x, y: y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let extent = width + 2 * quietZone
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(extent * moduleSize)" height="\(extent * moduleSize)" \
            viewBox="0 0 \(extent) \(extent)" shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>
            """
    }
}
