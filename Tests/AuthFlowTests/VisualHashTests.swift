import AuthFlow
import Testing

/// The visual hash is what a person compares between two screens, so the same server must draw
/// the same picture in every version: pinned here (as the first version drew them) for two
/// servers one port apart, which must look nothing alike.
@Suite struct VisualHashTests {
    static let key = "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOBBIMh3xJKg"

    @Test(arguments: [
        (
            "http://127.0.0.1:8080", "B021 BAAE 7A29 A701",
            [
                "#8478e2", "#642bce", "#209785", "#202c97", "#26b477", "#e68d9c", "#2cd22c", "#8cac24",
                "#1f4293", "#a6db56", "#675adc", "#6b8cdf", "#4ad8ca", "#dc5acd", "#282abd", "#8430d3",
            ]
        ),
        (
            "http://127.0.0.1:8081", "6633 096D 0C7D AF3F",
            [
                "#29c163", "#de7f67", "#a84723", "#5c4ed9", "#d35930", "#4e71d9", "#e184e5", "#29c1a3",
                "#9ae68d", "#ce312b", "#b42691", "#8735d4", "#bbce2b", "#2b7fce", "#dd5f6b", "#5ac4dc",
            ]
        ),
    ])
    func aServersPictureStaysTheSame(url: String, fingerprint: String, colors: [String]) {
        let hash = VisualHash.of(name: "AuthPhone demo", url: url, publicKey: Self.key)
        #expect(hash.fingerprint == fingerprint)
        #expect(hash.colors == colors)
    }
}
