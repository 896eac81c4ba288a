import Backend
import BackendAPI
import BlockingWork
import CPNG
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WebApp

/// A picture of a QR code uploaded to `/oob/image`: read in process, within limits of size, codes
/// and time, without child processes or temporary files.
@Suite(.timeLimit(.minutes(2))) struct QRImageTests {
    /// QR codes side by side in rows, `scale` pixels a module, each with a quiet zone: 8-bit grey.
    struct Picture {
        var width = 0, height = 0
        var pixels: [UInt8] = []

        init(_ texts: [String], columns: Int = 1, scale: Int = 4) throws {
            let codes = try texts.map { try QRCode($0) }
            let margin = 4
            let cell = ((codes.map(\.width).max() ?? 0) + 2 * margin) * scale
            width = cell * min(columns, codes.count)
            height = cell * ((codes.count + columns - 1) / columns)
            pixels = [UInt8](repeating: 255, count: width * height)
            for (index, code) in codes.enumerated() {
                let left = index % columns * cell + margin * scale
                let top = index / columns * cell + margin * scale
                for my in 0..<code.width {
                    for mx in 0..<code.width where code.isDark(x: mx, y: my) {
                        for y in top + my * scale..<top + (my + 1) * scale {
                            for x in left + mx * scale..<left + (mx + 1) * scale { pixels[y * width + x] = 0 }
                        }
                    }
                }
            }
        }

        var pgm: ByteBuffer { ByteBuffer(bytes: Array("P5\n\(width) \(height)\n255\n".utf8) + pixels) }

        /// Written by libpng, the library the server reads PNG with.
        var png: ByteBuffer {
            get throws {
                var image = png_image()
                image.version = UInt32(PNG_IMAGE_VERSION)
                image.width = UInt32(width)
                image.height = UInt32(height)
                image.format = UInt32(PNG_FORMAT_GRAY)
                var size = 0
                try #require(png_image_write_to_memory(&image, nil, &size, 0, pixels, 0, nil) != 0)
                var file = [UInt8](repeating: 0, count: size)
                try #require(png_image_write_to_memory(&image, &file, &size, 0, pixels, 0, nil) != 0)
                return ByteBuffer(bytes: file.prefix(size))
            }
        }
    }

    /// The QR code as a grey-scale PGM picture, 4 pixels a module, with a quiet zone.
    static func picture(of text: String) throws -> ByteBuffer {
        try Picture([text]).pgm
    }

    /// Version-40 codes of 2,300 bytes each that are not AuthPhone payloads: 30 of them are more
    /// than the 64 KiB a pipe holds, which once hung the request.
    static func largeCodes(_ count: Int) -> [String] {
        (0..<count).map { index in
            String("code \(index) of a page that is not AuthPhone's: ".padding(toLength: 2300, withPad: "lorem ipsum ", startingAt: 0))
        }
    }

    static func upload(
        _ client: some TestClientProtocol, _ phoneId: String, _ body: ByteBuffer,
        type: String = "image/png"
    ) async throws -> HTTPAnswer {
        try await client.execute(uri: "/api/phones/\(phoneId)/oob/image", method: .post, headers: [.contentType: type], body: body) {
            HTTPAnswer(status: $0.status, body: Data(buffer: $0.body), headers: $0.headers)
        }
    }

    /// Regular files in the temporary folder that this process's server could have written
    /// (other suites' databases aside; other processes share the folder, so their files are not
    /// counted): a picture scanned through a file would leave `authphone-qr-…` or a zbar image.
    static func temporaryFiles() throws -> Set<String> {
        // names only: other processes' files come and go while the folder is read
        let folder = FileManager.default.temporaryDirectory
        return Set(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
                var isFolder: ObjCBool = false
                return !name.contains(".sqlite") && ["authphone", "zbar", "qr"].contains(where: name.lowercased().hasPrefix)
                    && FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
                    && !isFolder.boolValue
            })
    }

    @Test func anUploadedPictureOfTheQRCodeStartsTheFlow() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let enrol = try await client.startSession("enrol", user: "alice")
            let started = try await client.execute(
                uri: "/api/phones/\(phone.id)/oob/image", method: .post,
                headers: [.contentType: "image/x-portable-graymap"], body: Self.picture(of: enrol.qrText))
            #expect(started.status == .accepted)
            #expect(try await client.phoneDetail(phone.id).flow?.session?.id == enrol.id)

            // a code that holds the deep link (or the app link) starts the operation as the link does
            let linked = try await client.createPhone("linked")
            let login = try await client.startSession("enrol", user: "dave")
            let byLink = try await client.execute(
                uri: "/api/phones/\(linked.id)/oob/image", method: .post,
                headers: [.contentType: "image/x-portable-graymap"], body: Self.picture(of: login.deepLink))
            #expect(byLink.status == .accepted)
            #expect(try await client.phoneDetail(linked.id).flow?.session?.id == login.id)

            let blank = try await client.execute(
                uri: "/api/phones/\(phone.id)/oob/image", method: .post,
                headers: [.contentType: "image/x-portable-graymap"],
                body: ByteBuffer(bytes: Array("P5\n8 8\n255\n".utf8) + [UInt8](repeating: 255, count: 64)))
            #expect(blank.status == .unprocessableContent)
            let garbage = try await client.execute(
                uri: "/api/phones/\(phone.id)/oob/image", method: .post,
                headers: [.contentType: "image/png"], body: ByteBuffer(string: "not an image"))
            #expect(garbage.status == .badRequest)
        }
    }

    @Test func aPNGIsReadInProcessAndThePageOfManyCodesAnswersWithTheAuthPhoneOne() async throws {
        var configuration = testConfiguration()
        configuration.pictureScanTimeLimit = .seconds(60)  // a loaded machine; the point is an answer, not its speed
        let app = try await buildApplication(configuration)
        let before = try Self.temporaryFiles()
        try await app.test(.live) { client in  // live: the phone redeems at the server's own backend
            let phone = try await client.createPhone()
            let enrol = try await client.startSession("enrol", user: "bob")
            let single = try await Self.upload(client, phone.id, Picture([enrol.qrText]).png)
            #expect(single.status == .accepted)
            #expect(try await client.phoneDetail(phone.id).flow?.session?.id == enrol.id)

            let another = try await client.createPhone()
            let junk = try await Self.upload(client, another.id, Picture(Self.largeCodes(30), columns: 6, scale: 2).png)
            #expect(junk.status == .unprocessableContent)
            let refusal = try junk.decode(WireErrorBody.self).error
            #expect(refusal.code == "NO_AUTHPHONE_QR_CODE")
            #expect(refusal.message.contains("30 QR codes"))

            let other = try await client.startSession("enrol", user: "carol")
            var texts = Self.largeCodes(29)
            texts.insert(other.qrText, at: 17)
            let found = try await Self.upload(client, another.id, Picture(texts, columns: 6, scale: 2).png)
            #expect(found.status == .accepted)
            #expect(try await client.phoneDetail(another.id).flow?.session?.id == other.id)
        }
        let left = try Self.temporaryFiles().subtracting(before)
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aScanOverTheTimeLimitAnswersSoonerWithTimedOut() async throws {
        var configuration = testConfiguration()
        configuration.pictureScanTimeLimit = .zero
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let answer = try await Self.upload(client, phone.id, Picture(Self.largeCodes(30), columns: 6, scale: 2).png)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.errorCode == "SCAN_TIMED_OUT")
        }
    }

    /// The pictures' lane held by the test: a picture over the lane's bound is refused at once with
    /// `Retry-After`; one admitted but waiting answers SCAN_TIMED_OUT at its deadline while the
    /// lane's thread is still held, and never runs.
    @Test func aFullLaneRefusesAtOnceAndAWaitingScanAnswersAtItsDeadline() async throws {
        let lane = WorkLane(name: "pictures", threads: 1, capacity: 2, retryAfter: .seconds(2))
        let release = DispatchSemaphore(value: 0)
        var configuration = testConfiguration()
        configuration.pictureLane = lane
        configuration.pictureScanTimeLimit = .milliseconds(200)
        try await buildApplication(configuration).test(.router) { client in
            let phone = try await client.createPhone()
            let picture = try Picture([try await client.startSession("enrol", user: "bob").qrText]).png
            let holder = Task { try await lane.run { _ in release.wait() } }
            while lane.load < 1 { await Task.yield() }
            let waiting = Task { try await Self.upload(client, phone.id, picture) }
            while lane.load < 2 { await Task.yield() }

            let refused = try await Self.upload(client, phone.id, picture)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.errorCode == "SCANNER_BUSY")
            #expect(refused.headers[.retryAfter] == "2")

            let late = try await waiting.value
            #expect(late.errorCode == "SCAN_TIMED_OUT")
            #expect(lane.load == 2, "the lane's thread is still held")
            release.signal()
            try await holder.value
            while lane.load > 0 { await Task.yield() }
            #expect(try await client.phoneDetail(phone.id).flow == nil, "the scan cut short never ran")
        }
        await lane.shutdown()
    }

    /// Headers that declare 50,000 × 50,000 pixels (2.5 GB of grey) in a few bytes.
    @Test func aPictureDeclaringHugeDimensionsIsRefusedBeforeDecoding() async throws {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc >> 1 ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
            }
            return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        let side = bigEndian(50_000)
        let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", side + side + [8, 0, 0, 0, 0]) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", [])
        let pgm = Array("P5\n50000 50000\n255\n".utf8) + [0, 0, 0]

        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            for (picture, type) in [(png, "image/png"), (pgm, "image/x-portable-graymap")] {
                let answer = try await Self.upload(client, phone.id, ByteBuffer(bytes: picture), type: type)
                #expect(answer.status == .contentTooLarge)
                #expect(answer.errorCode == "IMAGE_TOO_LARGE")
            }
        }
    }

    @Test func bytesThatAreNoPictureAreUnreadable() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let truncated = try Array(Picture(["x"]).png.readableBytesView.prefix(40))
            for body in [Array("not an image".utf8), truncated, [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3], Array("P5\n8 8\n255\n".utf8)] {
                let answer = try await Self.upload(client, phone.id, ByteBuffer(bytes: body))
                #expect(answer.status == .badRequest)
                #expect(answer.errorCode == "UNREADABLE_IMAGE")
            }
        }
    }
}
