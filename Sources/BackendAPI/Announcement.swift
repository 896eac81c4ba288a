import Foundation

/// What a server announces with a login or enrolment (seed 001: "announceInfo … can contain a
/// logo and an arbitrary set of strings, each identified by a unique key"). The backend that
/// sets it and the phone that shows it check it the same way.
public enum Announcement {
    public static let maximumEntries = 10
    public static let maximumKeyLength = 64
    public static let maximumValueLength = 200
    public static let maximumLogoBytes = 8 * 1024

    /// A logo's picture types, each with the bytes its files start with.
    static let logoTypes: [(name: String, magic: [UInt8])] = [
        ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), ("jpeg", [0xFF, 0xD8, 0xFF]), ("gif", Array("GIF8".utf8)),
    ]

    /// What is wrong with the strings, or nil: at most 10, each key and each value one line
    /// (docs/behaviour.md#user-interaction), as the phone shows each entry as a "Key: value"
    /// line that a line break in a value could add to.
    public static func problem(in info: [String: String]) -> String? {
        if info.count > maximumEntries { return "must have at most \(maximumEntries) entries" }
        for (key, value) in info.sorted(by: { $0.key < $1.key }) {
            if let problem = ReadableText.nameProblem(in: key, limit: maximumKeyLength) { return "key '\(key)' \(problem)" }
            if let problem = ReadableText.nameProblem(in: value, limit: maximumValueLength) { return "value of '\(key)' \(problem)" }
        }
        return nil
    }

    /// What is wrong with the logo, or nil: a `data:image/png|jpeg|gif;base64,` URL of at most
    /// 8 KiB whose bytes are that picture type (no SVG: a picture that can hold a script).
    public static func logoProblem(_ logo: String) -> String? {
        let allowed = "must be a data:image/png, jpeg or gif;base64 URL of at most \(maximumLogoBytes) bytes"
        guard logo.hasPrefix("data:image/"), let comma = logo.firstIndex(of: ",") else { return allowed }
        let header = logo[logo.index(logo.startIndex, offsetBy: 11)..<comma]
        guard header.hasSuffix(";base64"), let type = logoTypes.first(where: { header == "\($0.name);base64" }),
            logo.utf8.count <= maximumLogoBytes * 4 / 3 + 64,
            let bytes = Data(base64Encoded: String(logo[logo.index(after: comma)...])), bytes.count <= maximumLogoBytes
        else { return allowed }
        guard bytes.starts(with: type.magic) else { return "is not a \(type.name) picture" }
        return nil
    }
}
