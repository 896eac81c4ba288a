import Foundation
import PostgresNIO

/// Where a PostgreSQL is, from a URL as libpq takes one:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, or a
/// Unix socket's folder in `?host=/path`. The password is kept out of every description.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    let configuration: PostgresClient.Configuration
    /// The URL without its password, for logs and `/ready`.
    public let description: String

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(url text: String) throws(Invalid) {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw Invalid(description: "the database URL must be postgres://USER@HOST[:PORT]/DATABASE")
        }
        guard let user = url.user, !user.isEmpty else { throw Invalid(description: "the database URL names no user (postgres://USER@HOST/DATABASE)") }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty else { throw Invalid(description: "the database URL names no database (postgres://USER@HOST/DATABASE)") }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if let unknown = Set(query.keys).subtracting(["sslmode", "host"]).sorted().first {
            throw Invalid(description: "the database URL's option \(unknown) is not one AuthPhone reads (sslmode, host)")
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw Invalid(description: "the database URL's sslmode \(other) is not disable, prefer or require")
        }
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            let port = url.port ?? 5432
            configuration = .init(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: url.password, database: database)
            description = "postgres://\(user)@/\(database)?host=\(socketFolder)"
        } else {
            guard let host = url.host, !host.isEmpty else { throw Invalid(description: "the database URL names no host") }
            let port = url.port ?? 5432
            configuration = .init(host: host, port: port, username: user, password: url.password, database: database, tls: tls)
            description = "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }
}
