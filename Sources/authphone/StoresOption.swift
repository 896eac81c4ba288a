import ArgumentParser
import Storage
import WebApp

/// Where a command finds a stopped server's stores: its data folder, or the PostgreSQL it was
/// started with (`serve --database`).
struct StoresOption: ParsableArguments {
    @Option(help: "The server's data folder (default: \(AppConfiguration.defaultDataDirectory)).") var dataDir: String?
    @Option(help: "The server's PostgreSQL instead of a data folder: postgres://USER@HOST[:PORT]/DATABASE.") var database: String?

    func location() throws -> StoresLocation {
        guard let database else { return .folder(dataDir ?? AppConfiguration.defaultDataDirectory) }
        guard dataDir == nil else { throw ValidationError("--data-dir and --database exclude each other: the stores are in one place") }
        do { return .postgres(try PostgresLocation(url: database)) } catch { throw ValidationError("--database: \(error)") }
    }
}
