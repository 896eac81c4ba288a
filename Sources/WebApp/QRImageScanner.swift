import Foundation

/// Reads QR codes out of an uploaded picture (a screenshot, a photo of a screen) with libzbar's
/// `zbarimg`, which also decodes the image formats libzbar itself cannot read.
struct QRImageScanner: Sendable {
    var executable = "/usr/bin/zbarimg"
    static let maximumImageSize = 8 * 1024 * 1024

    /// The text of the first QR code in the image.
    func scan(_ image: Data) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw APIError(.serviceUnavailable, "QR_SCANNER_MISSING", "zbarimg is not installed (Debian package zbar-tools)")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authphone-qr-\(UUID().uuidString)")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--quiet", "--raw", "--nodbus", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        switch status {
        case 0:
            guard let first = text.split(separator: "\n").first else { throw Self.noCode }
            return String(first)
        case 4: throw Self.noCode // zbarimg: no symbol found
        default: throw APIError(.badRequest, "UNREADABLE_IMAGE", "the upload is not an image zbarimg can read (PNG, JPEG, GIF…)")
        }
    }

    static let noCode = APIError(.unprocessableContent, "NO_QR_CODE", "no QR code was found in the image")
}
