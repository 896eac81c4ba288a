import ArgumentParser
import WebApp

/// `authphone reset --data-dir DIR`: a CI job's fresh start without a server (`POST /api/reset`
/// is the same for a running one). Phones, backend accounts and sessions, push registrations and
/// inboxes are erased; the backend keeps its key, the push service its senders' service accounts.
struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erase the phones, backend accounts and sessions, and push inboxes of a data folder (keys and service accounts stay).")

    @Option(help: "The server's data folder.") var dataDir = AppConfiguration.defaultDataDirectory

    func run() async throws {
        do { try await resetDatabases(in: dataDir) } catch let error as DataFolderError { throw ValidationError(error.message) }
        print("reset \(dataDir)")
    }
}
