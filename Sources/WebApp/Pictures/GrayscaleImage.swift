import CPNG
import CTurboJPEG
import Foundation

/// An uploaded picture as 8-bit grey levels, one byte a pixel, row by row: what libzbar scans.
/// PNG goes through libpng and JPEG through libjpeg-turbo (both fuzzed and security-maintained,
/// unlike single-header decoders); binary PGM is read here. The size a header declares is
/// checked before any pixel is decoded, so a small file cannot claim a huge allocation.
struct GrayscaleImage {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(decoding data: Data, maximumPixels: Int) throws(APIError) {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            self = try Self.png(bytes, maximumPixels: maximumPixels)
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = try Self.jpeg(bytes, maximumPixels: maximumPixels)
        } else if bytes.starts(with: Array("P5".utf8)) {
            self = try Self.pgm(bytes, maximumPixels: maximumPixels)
        } else {
            throw Self.unreadable
        }
    }

    private init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    static let unreadable = APIError(.badRequest, "UNREADABLE_IMAGE", "the upload is not a PNG, JPEG or binary PGM picture that can be read")

    /// The declared size, if it is within the limit.
    private static func checked(width: Int, height: Int, maximumPixels: Int) throws(APIError) -> (Int, Int) {
        guard width > 0, height > 0 else { throw unreadable }
        guard width <= maximumPixels / height else {
            throw APIError(
                .contentTooLarge, "IMAGE_TOO_LARGE",
                "the picture is \(width)×\(height) pixels; at most \(maximumPixels / 1_000_000) megapixels are scanned")
        }
        return (width, height)
    }

    private static func png(_ bytes: [UInt8], maximumPixels: Int) throws(APIError) -> GrayscaleImage {
        // libpng reads from the memory it was given at the start until the end: one pointer for both.
        let decoded = bytes.withUnsafeBytes { file in
            Result { () throws(APIError) in
                var image = png_image()
                image.version = UInt32(PNG_IMAGE_VERSION)
                defer { png_image_free(&image) }
                guard png_image_begin_read_from_memory(&image, file.baseAddress, file.count) != 0 else { throw unreadable }
                let (width, height) = try checked(width: Int(image.width), height: Int(image.height), maximumPixels: maximumPixels)
                image.format = UInt32(PNG_FORMAT_GRAY)
                // Transparent pixels are composed onto what the buffer holds: white, like a page.
                var pixels = [UInt8](repeating: 255, count: width * height)
                guard png_image_finish_read(&image, nil, &pixels, 0, nil) != 0 else { throw unreadable }
                return GrayscaleImage(width: width, height: height, pixels: pixels)
            }
        }
        return try decoded.get()
    }

    private static func jpeg(_ bytes: [UInt8], maximumPixels: Int) throws(APIError) -> GrayscaleImage {
        guard let decompressor = tjInitDecompress() else { throw unreadable }
        defer { tjDestroy(decompressor) }
        var declaredWidth: Int32 = 0
        var declaredHeight: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(decompressor, bytes, UInt(bytes.count), &declaredWidth, &declaredHeight, &subsampling, &colorspace) == 0
        else { throw unreadable }
        let (width, height) = try checked(width: Int(declaredWidth), height: Int(declaredHeight), maximumPixels: maximumPixels)
        var pixels = [UInt8](repeating: 255, count: width * height)
        // LIMITSCANS refuses progressive files with hundreds of scans, a known way to burn CPU.
        let status = tjDecompress2(
            decompressor, bytes, UInt(bytes.count), &pixels, declaredWidth, 0, declaredHeight,
            Int32(TJPF_GRAY.rawValue), TJFLAG_LIMITSCANS)
        // A warning (a truncated or slightly damaged file) still leaves a picture worth scanning.
        guard status == 0 || tjGetErrorCode(decompressor) == Int32(TJERR_WARNING.rawValue) else { throw unreadable }
        return GrayscaleImage(width: width, height: height, pixels: pixels)
    }

    /// Binary PGM: "P5", width, height and the largest grey value in ASCII (with optional
    /// `#` comments), one white-space byte, then one byte a pixel.
    private static func pgm(_ bytes: [UInt8], maximumPixels: Int) throws(APIError) -> GrayscaleImage {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var header: [Int] = []
        var index = 2
        while header.count < 3 {
            guard index < bytes.count else { throw unreadable }
            if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if isSpace(bytes[index]) {
                index += 1
            } else {
                let digits = bytes[index...].prefix { (0x30...0x39).contains($0) }
                guard (1...9).contains(digits.count), let value = Int(String(decoding: digits, as: UTF8.self)) else { throw unreadable }
                header.append(value)
                index += digits.count
            }
        }
        guard index < bytes.count, isSpace(bytes[index]), (1...255).contains(header[2]) else { throw unreadable }
        let (width, height) = try checked(width: header[0], height: header[1], maximumPixels: maximumPixels)
        let start = index + 1
        let maximum = header[2]
        guard bytes.count - start >= width * height else { throw unreadable }
        let pixels = bytes[start..<start + width * height].map { UInt8(min(Int($0), maximum) * 255 / maximum) }
        return GrayscaleImage(width: width, height: height, pixels: pixels)
    }
}
