import ArgumentParser
import Foundation
import LoadGenerator
import Scenarios

/// The server a recording command talks to: `--server`, or `--url` as the replay docs say it.
struct ServerOption: ParsableArguments {
    @Option(name: [.customLong("server"), .customLong("url")], help: "Base URL of the running AuthPhone.")
    var server = "http://127.0.0.1:8080"

    var api: ServerAPI { ServerAPI(base: server) }
}

/// `authphone record …`: a walk on a running server recorded, then kept as a scenario or a
/// pytest file (docs/recording.md). Exit 0: done; 1: the server refused (its code on standard error).
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a walk on a running AuthPhone and download it as a scenario or a pytest file.",
        subcommands: [Start.self, Stop.self, List.self, Download.self, Delete.self])

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start recording; prints the recording's id.")
        @Option(help: "What the walk shows (default: Walk N).") var name: String?
        @OptionGroup var server: ServerOption
        func run() async throws {
            var body: [String: any Sendable] = [:]
            body["name"] = name
            print(try await refusing { try await server.api.call(.POST, "/api/recordings", body)["id"] as? String ?? "" })
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a recording; prints how many steps it holds.")
        @Argument(help: "The recording's id.") var id: String
        @OptionGroup var server: ServerOption
        func run() async throws {
            let stopped = try await refusing { try await server.api.call(.POST, "/api/recordings/\(id)/stop") }
            let steps = stopped["steps"] as? Int ?? 0
            print(steps == 1 ? "1 step" : "\(steps) steps")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the recordings: id, state, steps and name, one a line.")
        @OptionGroup var server: ServerOption
        func run() async throws {
            let recordings = try await refusing { try await server.api.call(.GET, "/api/recordings")["recordings"] as? [[String: Any]] ?? [] }
            for recording in recordings {
                print(["id", "state", "steps", "name"].map { "\(recording[$0] ?? "")" }.joined(separator: "\t"))
            }
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a recording out: its JSON scenario, or a pytest file.")
        @Argument(help: "The recording's id.") var id: String
        @Option(help: "json (a scenario `authphone replay` runs) or pytest.") var format = "json"
        @Option(name: .shortAndLong, help: "The file to write (default: standard output).") var output: String?
        @OptionGroup var server: ServerOption
        func run() async throws {
            let text = try await refusing { try await server.api.text("/api/recordings/\(id)?format=\(format)") }
            if let output { try Data(text.utf8).write(to: URL(fileURLWithPath: output)) } else { print(text, terminator: "") }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a recording.")
        @Argument(help: "The recording's id.") var id: String
        @OptionGroup var server: ServerOption
        func run() async throws {
            _ = try await refusing { try await server.api.call(.DELETE, "/api/recordings/\(id)") }
        }
    }
}

/// `authphone replay FILE`: a recorded scenario walked again. Prints each step as it passes;
/// exit 1 at the first answer that differs from the recording's, the two side by side; 2 for a
/// file that is not a scenario.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Replay a recorded scenario (its JSON) on a running AuthPhone.")
    @Argument(help: "The scenario file.") var file: String
    @OptionGroup var server: ServerOption

    func run() async throws {
        let scenario: Scenario
        do {
            scenario = try Scenario.read(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            FileHandle.standardError.write(Data("\(file): \(error)\n".utf8))
            throw ExitCode(2)
        }
        print("Replaying \"\(scenario.name)\" (\(scenario.steps.count) steps) on \(server.server)")
        if !scenario.serve.isEmpty { print("It was recorded on a server started with \(scenario.serve.joined(separator: " ")).") }
        var replay = ScenarioReplay(url: server.server)
        do {
            try await replay.run(scenario) { print($0) }
        } catch let difference as ReplayDifference {
            FileHandle.standardError.write(Data("\(difference)\n".utf8))
            throw ExitCode(1)
        } catch let failure as LoadFailure {
            FileHandle.standardError.write(Data("\(failure.code): \(failure.detail)\n".utf8))
            throw ExitCode(1)
        } catch let error as ScenarioError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        print("All \(scenario.steps.count) steps answered as recorded.")
    }
}

/// `work`'s answer; a refusal printed as the server's code and message, exit 1.
private func refusing<T>(_ work: () async throws -> T) async throws -> T {
    do { return try await work() } catch let failure as LoadFailure {
        FileHandle.standardError.write(Data("\(failure.code): \(failure.detail)\n".utf8))
        throw ExitCode(1)
    }
}
