import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL is, from a URL as libpq takes one:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, or a
/// Unix socket's folder in `?host=/path`. The password is kept out of every description.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    let configuration: PostgresClient.Configuration
    /// The same place for one connection of its own (`probe`).
    private let single: @Sendable () throws -> PostgresConnection.Configuration
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
            single = { [password = url.password] in
                .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            }
            description = "postgres://\(user)@/\(database)?host=\(socketFolder)"
        } else {
            guard let host = url.host, !host.isEmpty else { throw Invalid(description: "the database URL names no host") }
            let port = url.port ?? 5432
            configuration = .init(host: host, port: port, username: user, password: url.password, database: database, tls: tls)
            let mode = query["sslmode"] ?? "prefer"
            single = { [password = url.password] in
                let context = { try NIOSSLContext(configuration: .makeClientConfiguration()) }
                let tls: PostgresConnection.Configuration.TLS =
                    switch mode {
                    case "disable": .disable
                    case "require": .require(try context())
                    default: .prefer(try context())
                    }
                return .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
            }
            description = "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }

    /// One connection made and closed, so that a server that cannot be reached, or refuses the
    /// user or the database, says why at start (the pool would only keep trying).
    public func probe(logger: Logger) async throws(Invalid) {
        do {
            let connection = try await PostgresConnection.connect(configuration: try single(), id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw Invalid(description: "\(description) cannot be used: \(Self.cause(of: error))")
        }
    }

    /// What went wrong, in the server's words when it said any, without the request's values.
    static func cause(of error: any Error) -> String {
        guard let postgres = error as? PSQLError else { return "\(error)" }
        if let message = postgres.serverInfo?[.message] { return message }
        if let underlying = postgres.underlying { return "\(underlying)" }
        return "\(postgres.code)"
    }
}
