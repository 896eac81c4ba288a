import ArgumentParser
import WebApp

/// `authphone reset [--data-dir DIR | --database URL]`: a CI job's fresh start without a server (`POST /api/reset`
/// is the same for a running one). Phones, backend accounts and sessions, push registrations and
/// inboxes are erased; the backend keeps its key, the push service its senders' service accounts.
struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erase the phones, backend accounts and sessions, and push inboxes of a server's stores (keys and service accounts stay).")

    @OptionGroup var stores: StoresOption

    func run() async throws {
        let location = try stores.location()
        do { try await resetDatabases(in: location) } catch let error as DataFolderError { throw ValidationError(error.message) }
        print("reset \(location)")
    }
}
