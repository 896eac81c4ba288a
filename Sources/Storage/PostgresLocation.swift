import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL is, from a URL as libpq takes one:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, or a
/// Unix socket's folder in `?host=/path`. The password is kept out of every description.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    private let endpoint: Endpoint
    private let user: String
    private let password: String?
    private let database: String
    private let sslmode: SSLMode
    /// The URL without its password, for logs and `/ready`.
    public let description: String

    private enum Endpoint {
        case tcp(host: String, port: Int)
        case socket(path: String)
    }

    private enum SSLMode: String {
        case disable, prefer, require
    }

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
        let mode = query["sslmode"] ?? "prefer"
        guard let sslmode = SSLMode(rawValue: mode) else {
            throw Invalid(description: "the database URL's sslmode \(mode) is not disable, prefer or require")
        }
        (self.user, password, self.database, self.sslmode) = (user, url.password, database, sslmode)
        let port = url.port ?? 5432
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            endpoint = .socket(path: "\(socketFolder)/.s.PGSQL.\(port)")
            description = "postgres://\(user)@/\(database)?host=\(socketFolder)"
        } else {
            guard let host = url.host, !host.isEmpty else { throw Invalid(description: "the database URL names no host") }
            endpoint = .tcp(host: host, port: port)
            description = "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }

    /// The place for a pool (`PostgresDatabase`).
    var configuration: PostgresClient.Configuration {
        switch endpoint {
        case .socket(let path): return .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS =
                switch sslmode {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            return .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
    }

    /// The same place for one connection of its own (`probe`).
    private func singleConnection() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .socket(let path): return .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port):
            let context = { try NIOSSLContext(configuration: .makeClientConfiguration()) }
            let tls: PostgresConnection.Configuration.TLS =
                switch sslmode {
                case .disable: .disable
                case .prefer: .prefer(try context())
                case .require: .require(try context())
                }
            return .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
    }

    /// One connection made and closed, so that a server that cannot be reached, or refuses the
    /// user or the database, says why at start (the pool would only keep trying); one that has
    /// not answered within `limit` (`--database-timeout`) is given up.
    public func probe(within limit: Duration, logger: Logger) async throws(Invalid) {
        let description = description
        let connecting = Result<PostgresConnection.Configuration, any Error> { try singleConnection() }
        let failure = await answer(within: limit, else: { "it did not answer within \(limit)" }) { () -> String? in
            do {
                var configuration = try connecting.get()
                configuration.options.connectTimeout = .nanoseconds(Int64(limit / .nanoseconds(1)))
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try? await connection.close()
                return nil
            } catch {
                return Self.cause(of: error)
            }
        }
        if let failure { throw Invalid(description: "\(description) cannot be used: \(failure)") }
    }

    /// What went wrong, in the server's words when it said any (with its hint), in ours when
    /// the driver knows only a code, without the request's values.
    public static func cause(of error: any Error) -> String {
        guard let postgres = error as? PSQLError else { return "\(error)" }
        if let message = postgres.serverInfo?[.message] {
            guard let hint = postgres.serverInfo?[.hint] else { return message }
            return "\(message) (\(hint))"
        }
        switch postgres.code {
        case .authMechanismRequiresPassword:
            return "the server asks for a password and the URL gives none (postgres://USER:PASSWORD@HOST/DATABASE)"
        case .sslUnsupported: return "the server does not offer TLS, which sslmode=require insists on (sslmode=prefer takes it when offered)"
        case .unsupportedAuthMechanism:
            return "the server asks for a way of logging in AuthPhone does not speak (password, md5 and SCRAM-SHA-256 it does)"
        case .saslError: return "the password was refused in the SCRAM exchange"
        default: break
        }
        if let underlying = postgres.underlying { return "\(underlying)" }
        return "\(postgres.code)"
    }
}
