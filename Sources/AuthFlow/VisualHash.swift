import SodiumKit

/// What an enrolling phone shows of its backend for the user to compare with the backend's own
/// page: the same server draws the same picture, on the phone and on the console.
public struct VisualHash: Codable, Sendable, Equatable {
    public var fingerprint: String
    public var colors: [String]

    public init(fingerprint: String, colors: [String]) {
        self.fingerprint = fingerprint
        self.colors = colors
    }
}

extension VisualHash {
    /// A picture of the server's parameters (name, URL, key) that a person can compare at a
    /// glance: 16 colours and a short fingerprint from their BLAKE2b hash.
    public static func of(name: String, url: String, publicKey: String) -> VisualHash {
        let digest =
            (try? Sodium.genericHash(Array("\(name)\n\(url)\n\(publicKey)".utf8), length: 32))
            ?? [UInt8](repeating: 0, count: 32)
        let colors = stride(from: 0, to: 32, by: 2).map { i in
            let hue = Int(digest[i]) * 360 / 256
            let lightness = 35 + Int(digest[i + 1]) % 40
            return hsl(hue: hue, saturation: 65, lightness: lightness)
        }
        let hex = hexDigits(digest.prefix(8)).uppercased()
        let groups = stride(from: 0, to: hex.count, by: 4).map { offset -> String in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 4)])
        }
        return VisualHash(fingerprint: groups.joined(separator: " "), colors: colors)
    }

    private static func hsl(hue: Int, saturation: Int, lightness: Int) -> String {
        let s = Double(saturation) / 100
        let l = Double(lightness) / 100
        let c = (1 - abs(2 * l - 1)) * s
        let h = Double(hue) / 60
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(h) {
            case 0: (c, x, 0)
            case 1: (x, c, 0)
            case 2: (0, c, x)
            case 3: (0, x, c)
            case 4: (x, 0, c)
            default: (c, 0, x)
            }
        let m = l - c / 2
        return "#" + hexDigits([r, g, b].map { UInt8((($0 + m) * 255).rounded(.towardZero)) })
    }

    /// Two lower-case hex digits a byte (`String(format:)` cost more than the hash it formats).
    private static func hexDigits(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
