import Foundation
import Testing
import WireJSON

@testable import WebApp

/// The fields a type asks for, named as `StrictJSON.scan` names paths, through every kind of
/// container; the values and errors are the decoder's own.
struct FieldRecordingTests {
    struct Item: Codable, Equatable {
        let id: Int
        let note: String?
    }

    struct Everything: Codable, Equatable {
        enum Kind: String, Codable { case a, b }
        let kind: Kind
        let at: Date
        let blob: Data
        let items: [Item]
        let grid: [[Item]]
        let labels: [String: String]
        let maybe: Item?
        let numbers: [Double]
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> (value: T, fields: Set<String>) {
        try FieldRecording.decode(type, from: Data(text.utf8), with: WireJSON.decoder())
    }

    @Test func everyFieldAskedForIsNamedAsScanNamesIt() throws {
        let text = """
            {"kind": "b", "at": "2025-01-02T03:04:05Z", "blob": "AAE=", "items": [{"id": 1, "note": null}, {"id": 2}],
             "grid": [[{"id": 3}]], "labels": {"x": "1", "5": "2"}, "maybe": null, "numbers": [1.5]}
            """
        let (value, fields) = try decode(Everything.self, text)
        #expect(value.at == Date(timeIntervalSince1970: 1_735_787_045) && value.blob == Data([0, 1]) && value.items[0].note == nil)
        #expect(value.labels == ["x": "1", "5": "2"] && value.grid[0][0].id == 3)
        #expect(
            fields == [
                "kind", "at", "blob", "items", "items[]", "items[].id", "items[].note", "grid", "grid[]", "grid[][]", "grid[][].id",
                "grid[][].note", "labels", "labels.x", "labels.5", "maybe", "numbers", "numbers[]",
            ])
    }

    /// An empty list has no elements to ask about; a field that is absent is still asked for.
    @Test func whatIsAskedIsWhatTheTypeReads() throws {
        let (_, fields) = try decode(Item.self, #"{"id": 1}"#)
        #expect(fields == ["id", "note"])
        #expect(try decode([Item].self, "[]").fields.isEmpty)
    }

    @Test func theDecodersErrorsStandAsTheyAre() {
        func outcome(_ decode: () throws -> Item) -> String {
            do {
                _ = try decode()
                return "decoded"
            } catch {
                return WireJSON.describe(error)
            }
        }
        for text in [#"{"id": "one"}"#, #"{"note": "x"}"#, #"{"id": 1.5}"#, #"{"id": null}"#, "[]"] {
            let plain = outcome { try WireJSON.decoder().decode(Item.self, from: Data(text.utf8)) }
            #expect(plain == outcome { try decode(Item.self, text).value }, "\(text)")
            #expect(plain != "decoded", "\(text)")
        }
    }
}
