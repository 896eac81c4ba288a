import Backend
import Foundation
import Logging
import Phone
import PushService
import SMSGateway
import SodiumKit
import StateExport
import Storage
import Timeline

// A server's stores as the command line sees them with no server running: erased (`authphone
// reset`), written out (`export`) and loaded (`import`), and the seed a server loads at start
// (`serve --seed`).

/// Where a server keeps its stores, as a command names them: a data folder's SQLite files, or a
/// PostgreSQL (`--database`).
public enum StoresLocation: Sendable, CustomStringConvertible {
    case folder(String)
    case postgres(PostgresLocation)

    public var description: String {
        switch self {
        case .folder(let directory): directory
        case .postgres(let location): location.description
        }
    }

    /// The stores, opened as a server would open them; a folder is made if missing.
    fileprivate func open() async throws -> (PhoneStore, BackendStore, PushStore, TimelineStore, SMSStore) {
        var configuration = AppConfiguration()
        switch self {
        case .folder(let directory): configuration.dataDirectory = directory
        case .postgres(let location): configuration.postgres = location
        }
        return try await openDatabases(configuration, logger: Logger(label: "authphone"))
    }

    /// A folder that holds none of `files` is refused, not made; a PostgreSQL is always there.
    fileprivate func mustHold(_ files: [String], _ what: String) throws {
        guard case .folder(let directory) = self, !files.contains(where: { FileManager.default.fileExists(atPath: directory + "/" + $0) })
        else { return }
        throw DataFolderError(message: "\(directory) holds no AuthPhone \(what) (\(files.joined(separator: ", ")))")
    }
}

/// `authphone reset`: a server's stores erased as `POST /api/reset` erases them (the backend
/// keeps its key, the push service its senders' service accounts). A folder that holds none of
/// them is refused, not created.
public func resetDatabases(in location: StoresLocation) async throws {
    try location.mustHold(DatabaseFile.all, "database")
    let (phones, backend, push, timeline, sms) = try await location.open()
    try await phones.erasePhones()
    try await backend.eraseTestData()
    try await push.eraseDeliveries()
    try await timeline.erase()
    try await sms.eraseTexts()
}

public struct DataFolderError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// `authphone export`: the phones and the backend's side of them, as the export file's bytes.
/// A folder needs both databases, or it is refused.
public func exportState(
    from location: StoresLocation, passphrase: GuardedBytes, cost: PassphraseBox.Cost = .interactive, now: Date = Date()
) async throws -> Data {
    for file in [DatabaseFile.phones, DatabaseFile.backend] { try location.mustHold([file], "phones and backend") }
    let (phones, backend, _, _, _) = try await location.open()
    let phonePart = try await phones.exported()
    let backendPart = try await backend.exported()
    let state = ExportedState(
        phones: phonePart.phones, backend: backendPart.backend,
        secrets: ExportedState.Secrets(
            phones: phonePart.phoneSecrets, accounts: phonePart.accountSecrets, serverSecretKey: backendPart.serverSecretKey,
            backendOTPKeys: backendPart.otpKeys, pinPublicKeys: backendPart.pinPublicKeys, otpSecrets: phonePart.otpSecrets))
    return try StateFile.write(state, passphrase: passphrase, cost: cost, at: now)
}

/// `authphone import`: the state into a folder that holds no phone and no backend account, or,
/// `replacing`, into any folder as if `reset` had run first. The file is checked whole before a
/// store is written; each store is written in one transaction.
public func importState(_ state: ExportedState, into location: StoresLocation, replacing: Bool, now: Date = Date()) async throws {
    let (phones, backend, push, timeline, sms) = try await location.open()
    if !replacing, let held = try await heldState(phones: phones, backend: backend) { throw StateExportError.notEmpty(held) }
    try await load(state, phones: phones, backend: backend, replacing: replacing, now: now)
    if replacing {
        // what the replaced phones had in flight is theirs, not the new ones'
        try await push.eraseDeliveries()
        try await timeline.erase()
        try await sms.eraseTexts()
    }
}

/// `serve --seed`: the state loaded into stores that hold no phone and no backend account (a
/// fresh folder, `--in-memory`); a folder in use keeps what it has, so a restart loses nothing.
func seedDatabases(_ state: ExportedState, phones: PhoneStore, backend: BackendStore, now: Date, logger: Logger) async throws {
    guard try await heldState(phones: phones, backend: backend) == nil else {
        logger.notice("The data folder holds phones or backend accounts already: the seed is not loaded")
        return
    }
    try await load(state, phones: phones, backend: backend, replacing: false, now: now)
    logger.info("Loaded the seed: \(state.phones.count) phones, \(state.backend.accounts.count) backend accounts")
}

private func load(_ state: ExportedState, phones: PhoneStore, backend: BackendStore, replacing: Bool, now: Date) async throws(StateExportError) {
    // both checked before either is written: a state one store refuses changes neither (the
    // backend's `load` checks before it writes)
    try PhoneStore.check(state)
    try await backend.load(state, replacing: replacing, at: now)
    try await phones.load(state, replacing: replacing)
}

/// Nil when neither store holds anything of the phones; else what they hold.
private func heldState(phones: PhoneStore, backend: BackendStore) async throws(StateExportError) -> String? {
    if !(try await phones.isEmpty()) { return "phones" }
    if !(try await backend.isEmpty()) { return "backend accounts" }
    return nil
}

/// The parts' database files in a data folder.
private enum DatabaseFile {
    static let phones = "phones.sqlite"
    static let backend = "backend.sqlite"
    static let push = "push.sqlite"
    static let timeline = "timeline.sqlite"
    static let sms = "sms.sqlite"
    static let all = [phones, backend, push, timeline, sms]
}

/// The parts' schemas on a shared PostgreSQL.
private enum PostgresSchema {
    static let phones = "phones"
    static let backend = "backend"
    static let push = "push"
    static let timeline = "timeline"
    static let sms = "sms"
}

/// The parts' stores where the server keeps its data: a schema each on a shared PostgreSQL, or
/// else one SQLite file per part, as if they ran on four machines (the SMS gateway one of them),
/// and one for the timeline that watches the wire between them (a record to look at: it is not synced at every batch).
func openDatabases(_ configuration: AppConfiguration, logger: Logger) async throws -> (
    PhoneStore, BackendStore, PushStore, TimelineStore, SMSStore
) {
    if let postgres = configuration.postgres {
        do { try await postgres.probe(within: configuration.postgresLimits.timeout, logger: logger) } catch {
            throw DataFolderError(message: "\(error)")
        }
        func schema(_ name: String) -> PostgresDatabase {
            PostgresDatabase(postgres, schema: name, limits: configuration.postgresLimits, logger: logger)
        }
        do {
            return (
                try await .open(schema(PostgresSchema.phones)), try await .open(schema(PostgresSchema.backend)),
                try await .open(schema(PostgresSchema.push)), try await .open(schema(PostgresSchema.timeline)),
                try await .open(schema(PostgresSchema.sms))
            )
        } catch {
            throw DataFolderError(message: "the stores could not be opened on \(postgres): \(PostgresLocation.cause(of: error))")
        }
    }
    guard let directory = configuration.dataDirectory else {
        return (try .inMemory(), try .inMemory(), try .inMemory(), try .inMemory(), try .inMemory())
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return (
        try .open(path: directory + "/" + DatabaseFile.phones), try .open(path: directory + "/" + DatabaseFile.backend),
        try .open(path: directory + "/" + DatabaseFile.push), try .open(path: directory + "/" + DatabaseFile.timeline, durability: .processCrash),
        try .open(path: directory + "/" + DatabaseFile.sms)
    )
}
