import CQRencode

/// Renders text as a QR code in SVG with libqrencode (error correction M, 8-bit mode).
public enum QRCodeSVG {
    public struct EncodingError: Error, Equatable {
        public let message: String
    }

    public static func render(_ text: String, moduleSize: Int = 6, quietZone: Int = 4) throws(EncodingError) -> String {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw EncodingError(message: "the text could not be encoded as a QR code (too long?)")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        let side = (width + 2 * quietZone) * moduleSize
        var path = ""
        path.reserveCapacity(width * width * 4)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard modules[y * width + x] & 1 == 1 else { x += 1; continue }
                let start = x
                while x < width && modules[y * width + x] & 1 == 1 { x += 1 } // one rectangle per dark run
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let extent = width + 2 * quietZone
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" viewBox="0 0 \(extent) \(extent)" \
        shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
        """
    }
}
