import ArgumentParser
import Foundation
import SodiumKit
import StateExport
import WebApp

/// `authphone export` and `authphone import`: a data folder's phones and the backend's side of
/// them, as one file a CI job keeps and loads again (docs/state-export.md). Run them on a
/// stopped server's folder. Exit 0: done; 1: refused (its code and message on standard error);
/// 64: a usage error.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a stopped server's phones, accounts, keys and backend accounts to one JSON file, secrets sealed with a passphrase.")

    @OptionGroup var stores: StoresOption
    @Option(help: "The file to write (replaced if it exists, readable by its owner only).") var out: String
    @OptionGroup var passphrase: PassphraseSource

    func run() async throws {
        try await StateCommand.refusing {
            let location = try stores.location()
            let data = try await exportState(from: location, passphrase: try passphrase.read())
            guard FileManager.default.createFile(atPath: out, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw StateExportError.storage("cannot write \(out)")
            }
            print("exported \(location) to \(out)")
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load an export into a stopped server's stores: ones with no phones and no backend accounts, or any with --replace.")

    @OptionGroup var stores: StoresOption
    @Option(name: .customLong("in"), help: "The export to load.") var input: String
    @Flag(help: "Erase the folder's phones, backend accounts and sessions, pushes and timeline first (as `reset`).") var replace = false
    @OptionGroup var passphrase: PassphraseSource

    func run() async throws {
        try await StateCommand.refusing {
            let state = try StateCommand.open(input, passphrase: try passphrase.read())
            let location = try stores.location()
            try await importState(state, into: location, replacing: replace)
            print("imported \(state.phones.count) phones and \(state.backend.accounts.count) backend accounts into \(location)")
        }
    }
}

/// The passphrase's sources; there is deliberately no flag that takes the passphrase itself.
struct PassphraseSource: ParsableArguments {
    @Option(help: "A file whose first line is the passphrase (else \(Passphrase.variable)).") var passphraseFile: String?

    func read() throws(StateExportError) -> GuardedBytes { try Passphrase.read(file: passphraseFile) }
}

enum StateCommand {
    /// The export in `path`, opened and checked.
    static func open(_ path: String, passphrase: GuardedBytes) throws(StateExportError) -> ExportedState {
        // one byte past the limit is enough to refuse a file too large, without reading it all
        guard let data = filePrefix(path, upTo: StateFile.maximumSize + 1) else { throw .unreadable("cannot read \(path)") }
        return try StateFile.read(data, passphrase: passphrase)
    }

    /// A refusal as the phone commands give one: its code and message on standard error, exit 1.
    static func refusing(_ work: () async throws -> Void) async throws {
        do { try await work() } catch let error as StateExportError {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as DataFolderError {
            throw ValidationError(error.message)
        }
    }
}
