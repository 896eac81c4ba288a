import Testing

@testable import OTP

/// RFC 4648 §10's vectors, written as privacyIDEA's Python reads them and read back.
struct Base32Tests {
    @Test(arguments: [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="), ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI======"),
    ])
    func theRFCsVectors(plain: String, encoded: String) throws {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(try Base32.decode(encoded) == Array(plain.utf8))
    }

    @Test func aLongSignatureGoesThereAndBack() throws {
        let bytes = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        #expect(try Base32.decode(Base32.encode(bytes)) == bytes)
    }
}
