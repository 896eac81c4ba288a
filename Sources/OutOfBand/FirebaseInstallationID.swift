/// A Firebase installation id (FID): the id of one app installation, which the Firebase Admin
/// SDKs now send to instead of its registration token (`{"message": {"fid": …}}`). An FCM
/// registration token starts with its installation's FID and a colon (`FID:APA91b…`), so the
/// token is the one fact kept: the FID is read off it, and a new token brings a new FID.
public enum FirebaseInstallationID {
    /// Firebase's FIDs are 22 base64url characters; older tokens of AuthPhone's carry 11.
    public static let lengths = 11...22

    /// The FID a registration token carries, or nil for a token without one.
    public static func of(token: String) -> String? {
        guard let colon = token.firstIndex(of: ":") else { return nil }
        let fid = String(token[..<colon])
        return isWellFormed(fid) ? fid : nil
    }

    /// Base64url characters only, of a length a FID has: anything else cannot name a phone.
    public static func isWellFormed(_ fid: String) -> Bool {
        lengths.contains(fid.utf8.count)
            && fid.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
            }
    }

    /// A new FID from 16 random bytes, as the Firebase SDKs make one: the first four bits are
    /// 0111, so it starts with c, d, e or f; 22 base64url characters.
    public static func make(randomBytes bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a FID is made of 16 bytes")
        var fixed = bytes
        fixed[0] = 0x70 | (fixed[0] & 0x0F)
        return Base64URL.encode(fixed)
    }
}
