import CZbar
import Dispatch
import Foundation
import OutOfBand
import Synchronization

/// Reads the AuthPhone payload out of an uploaded picture (a screenshot, a photo of a screen),
/// in process: the picture becomes grey levels (`GrayscaleImage`) and libzbar scans them. No
/// child process, no temporary file.
struct QRImageScanner: Sendable {
    static let maximumImageSize = 8 * 1024 * 1024
    /// 40 megapixels: a 40 MB grey buffer at most, refused from the header before decoding.
    static let maximumPixels = 40_000_000
    /// Far more codes than a picture of a screen holds; the rest are not read.
    static let maximumCodes = 64
    /// How long a request waits for the decoding and the scan together.
    var timeLimit: Duration = .seconds(5)

    /// The payload of the first code, in libzbar's order, that is an AuthPhone payload. A picture
    /// holding several payloads (a page with two sessions' codes) starts the first one's flow.
    func payload(in image: Data) async throws(APIError) -> OutOfBandPayload {
        let texts = try await codes(in: image)
        guard let first = texts.first else {
            throw APIError(.unprocessableContent, "NO_QR_CODE", "no QR code was found in the image")
        }
        // One code: why it is not a payload is the useful answer, as for QR text sent as JSON.
        guard texts.count > 1 else {
            do { return try OutOfBandDecoder.decode(scanned: first) } catch { throw APIError(error) }
        }
        for text in texts {
            if let payload = try? OutOfBandDecoder.decode(scanned: text) { return payload }
        }
        let count = texts.count == Self.maximumCodes ? "at least \(texts.count)" : "\(texts.count)"
        throw APIError(
            .unprocessableContent, "NO_AUTHPHONE_QR_CODE",
            "the image holds \(count) QR codes and none of them is an AuthPhone payload")
    }

    /// The texts of the QR codes in the picture, at most `maximumCodes`.
    ///
    /// The decoding and the scan block a thread and libzbar cannot be interrupted, so they run on
    /// a Dispatch thread, off Swift's cooperative pool. Guaranteed: the request answers within
    /// `timeLimit` (plus scheduling), with SCAN_TIMED_OUT if the work is not done. Not guaranteed:
    /// that abandoned work stops early; it runs to its end, which the pixel limit bounds (about a
    /// second for 37 megapixels of QR codes when measured, longer for a noisy photo), and then frees
    /// its buffers.
    private func codes(in image: Data) async throws(APIError) -> [String] {
        let timeLimit = timeLimit
        let result: Result<[String], APIError> = await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            DispatchQueue.global().async {
                answer.give(Result { () throws(APIError) in try Self.scan(GrayscaleImage(decoding: image, maximumPixels: Self.maximumPixels)) })
            }
            let (seconds, attoseconds) = timeLimit.components
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) {
                answer.give(
                    .failure(
                        APIError(
                            .serviceUnavailable, "SCAN_TIMED_OUT",
                            "reading the picture took longer than \(timeLimit); send a smaller or sharper one")))
            }
        }
        return try result.get()
    }

    private static func scan(_ picture: GrayscaleImage) -> [String] {
        let scanner = zbar_image_scanner_create()
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        return picture.pixels.withUnsafeBytes { pixels in
            // The zbar image borrows the pixels (no clean-up handler) and does not outlive them.
            let image = zbar_image_create()
            defer { zbar_image_destroy(image) }
            zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800": 8-bit grey
            zbar_image_set_size(image, UInt32(picture.width), UInt32(picture.height))
            zbar_image_set_data(image, pixels.baseAddress, UInt(pixels.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var texts: [String] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol, texts.count < maximumCodes {
                let data = UnsafeRawBufferPointer(start: zbar_symbol_get_data(current), count: Int(zbar_symbol_get_data_length(current)))
                texts.append(String(decoding: data, as: UTF8.self))
                symbol = zbar_symbol_next(current)
            }
            return texts
        }
    }
}

/// Resumes a continuation with whichever answer comes first, the scan's or the time limit's.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<[String], APIError>, Never>?>

    init(_ continuation: CheckedContinuation<Result<[String], APIError>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func give(_ result: Result<[String], APIError>) {
        continuation.withLock { $0.take() }?.resume(returning: result)
    }
}
