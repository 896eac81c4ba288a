import ArgumentParser
import WebApp

/// `authphone reset --data-dir DIR`: a CI job's fresh start without a server (`POST /api/reset`
/// is the same for a running one). Phones, backend accounts and sessions, push registrations and
/// inboxes are erased; the backend keeps its key.
struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erase the phones, backend accounts and sessions, and push inboxes of a data folder (the backend keeps its key).")

    @Option(help: "The server's data folder.") var dataDir = AppConfiguration.defaultDataDirectory

    func run() async throws {
        do { try await resetDatabases(in: dataDir) } catch let error as DataFolderError { throw ValidationError(error.message) }
        print("reset \(dataDir)")
    }
}
