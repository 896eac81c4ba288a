import BlockingWork
import CZbar
import Foundation
import OutOfBand

/// Reads the code out of an uploaded picture (a screenshot, a photo of a screen),
/// in process: the picture becomes grey levels (`GrayscaleImage`) and libzbar scans them. No
/// child process, no temporary file.
struct QRImageScanner: Sendable {
    static let maximumImageSize = 8 * 1024 * 1024
    /// 40 megapixels: a 40 MB grey buffer at most, refused from the header before decoding.
    static let maximumPixels = 40_000_000
    /// Far more codes than a picture of a screen holds; the rest are not read.
    static let maximumCodes = 64
    /// Where the decoding and the scan run.
    let lane: WorkLane
    /// How long a request waits for the decoding and the scan together.
    var timeLimit: Duration = .seconds(5)

    static let noCode = APIError(.unprocessableContent, "NO_QR_CODE", "no QR code was found in the image")

    /// The first code, in libzbar's order, that the phone reads (`ScannedCode`). A picture holding
    /// several (a page with two sessions' codes) starts what the first one starts.
    func code(in image: Data) async throws(APIError) -> ScannedCode {
        let texts = try await codes(in: image)
        guard let first = texts.first else { throw Self.noCode }
        // One code: why it is not a payload is the useful answer, as for QR text sent as JSON.
        guard texts.count > 1 else {
            do { return try ScannedCode(scanned: first) } catch { throw APIError(error) }
        }
        for text in texts {
            if let code = try? ScannedCode(scanned: text) { return code }
        }
        let count = texts.count == Self.maximumCodes ? "at least \(texts.count)" : "\(texts.count)"
        throw APIError(
            .unprocessableContent, "NO_AUTHPHONE_QR_CODE",
            "the image holds \(count) QR codes and none of them is an AuthPhone payload or a key URI")
    }

    /// The texts of the QR codes in the picture, at most `maximumCodes`.
    ///
    /// The decoding and the scan block a thread and libzbar cannot be interrupted, so they run on
    /// the pictures' lane (`WorkLane`), off the threads that serve requests; a full lane refuses
    /// the picture at once. Guaranteed: the request answers within `timeLimit`, with SCAN_TIMED_OUT
    /// if the work is not done, and work still waiting then never starts; work cut short between
    /// the decoding and the scan stops there. Not guaranteed: that a decoding or a scan already
    /// under way stops early; it runs to its end, which the pixel limit bounds (about a second
    /// for 37 megapixels of QR codes when measured, longer for a noisy photo), and holds its place
    /// in the lane until then.
    private func codes(in image: Data) async throws(APIError) -> [String] {
        do {
            return try await lane.run(deadline: timeLimit) { abandonment in
                let picture = try GrayscaleImage(decoding: image, maximumPixels: Self.maximumPixels)
                return abandonment.isAbandoned ? [] : Self.scan(picture)
            }
        } catch let error as APIError {
            throw error
        } catch let busy as WorkLane.Busy {
            var error = APIError(
                .serviceUnavailable, "SCANNER_BUSY",
                "\(lane.capacity) pictures are being read already; send it again in \(busy.retryAfter.components.seconds) s")
            error.retryAfter = busy.retryAfter
            throw error
        } catch is WorkLane.TimedOut {
            throw APIError(
                .serviceUnavailable, "SCAN_TIMED_OUT", "reading the picture took longer than \(timeLimit); send a smaller or sharper one")
        } catch {
            throw APIError(.serviceUnavailable, "SCAN_FAILED", "the picture could not be read: the server is shutting down")
        }
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
