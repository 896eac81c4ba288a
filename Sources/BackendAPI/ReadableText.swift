import Foundation

/// Text a person reads and a key signs (a transaction, a user's input): bounded, and free of
/// control and invisible formatting characters (such as a right-to-left override) but line
/// breaks, so the screen shows exactly what is signed. Both phone and backend check it.
public enum ReadableText {
    public static let maximumTransactionLength = 1000
    public static let maximumUserInputLength = 500

    /// What is wrong with a name (a user id, a display or device name) or other text shown as one
    /// line (an announceInfo value), or nil when it is fine: one line, and nothing that hides or
    /// reorders what is shown (a NUL that SQLite would cut the name at, a right-to-left override).
    public static func nameProblem(in name: String, limit: Int) -> String? {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > limit
            || name.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) })
        {
            return "must be 1 to \(limit) characters on one line, without control or invisible formatting characters"
        }
        return nil
    }

    /// What is wrong with the text, or nil when it is fine.
    public static func problem(in text: String, limit: Int) -> String? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.count > limit {
            return "must be 1 to \(limit) characters"
        }
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format]
        if text.unicodeScalars.contains(where: { $0 != "\n" && hidden.contains($0.properties.generalCategory) }) {
            return "must not contain control or invisible formatting characters other than line breaks"
        }
        return nil
    }
}
