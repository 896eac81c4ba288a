import ArgumentParser
import WebApp

@main
struct AuthPhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authphone",
        abstract: "A simulated mobile authenticator with its demo backend, in one server.",
        version: authPhoneVersion,
        subcommands: [
            Serve.self, Push.self, Load.self, Reset.self, Export.self, Import.self, PhoneCommand.self, Record.self, Replay.self,
        ],
        defaultSubcommand: Serve.self)
}
