import Testing

@testable import Storage

/// The pure parts of the PostgreSQL engine: where a URL says the server is (and what it refuses),
/// and the stores' `?` placeholders numbered as PostgreSQL wants them.
@Suite struct PostgresWordsTests {
    @Test func aURLSaysWhereTheServerIsWithoutItsPassword() throws {
        let location = try PostgresLocation(url: "postgres://ann:secret@db.example:6543/authphone?sslmode=require")
        #expect(location.description == "postgres://ann@db.example:6543/authphone")
        #expect(try PostgresLocation(url: "postgresql://ann@localhost/authphone").description == "postgres://ann@localhost:5432/authphone")
        #expect(
            try PostgresLocation(url: "postgres://ann@localhost/authphone?host=/run/postgresql").description
                == "postgres://ann@/authphone?host=/run/postgresql")
    }

    @Test(arguments: [
        ("mysql://ann@db/authphone", "must be postgres://"),
        ("postgres://db.example/authphone", "names no user"),
        ("postgres://ann@db.example", "names no database"),
        ("postgres://ann@db.example/authphone?sslmode=verify-full", "sslmode verify-full"),
        ("postgres://ann@db.example/authphone?connect_timeout=3", "connect_timeout"),
        ("not a url at all", "must be postgres://"),
    ])
    func aURLThatSaysTooLittleOrTooMuchIsRefused(_ url: String, _ mentions: String) {
        let refusal = #expect(throws: PostgresLocation.Invalid.self) { try PostgresLocation(url: url) }
        #expect(refusal?.description.contains(mentions) == true, "\(String(describing: refusal))")
        #expect(refusal?.description.contains("secret") != true)
    }

    @Test func placeholdersAreNumberedOutsideQuotesOnly() {
        #expect(PostgresSQL.numberingPlaceholders("SELECT * FROM t WHERE a = ? AND b = ?") == "SELECT * FROM t WHERE a = $1 AND b = $2")
        #expect(PostgresSQL.numberingPlaceholders("SELECT '?', \"?\" FROM t WHERE a = ?") == "SELECT '?', \"?\" FROM t WHERE a = $1")
        #expect(PostgresSQL.numberingPlaceholders("SELECT 'it''s ?' WHERE x = ?") == "SELECT 'it''s ?' WHERE x = $1")
    }
}
