import ArgumentParser
import Configuration
import Foundation

/// Where `serve` finds an option its command line left out: the environment variable
/// `AUTHPHONE_NAME` (`dataDir` → `AUTHPHONE_DATA_DIR`), then the `--config` file (JSON or YAML,
/// the same camel-case keys), read through swift-configuration. A value there that does not
/// read as the option's kind is an error that names it, never a silent default.
struct OptionSources: Sendable {
    private let reader: ConfigReader
    private let file: String?

    static let environmentPrefix = "AUTHPHONE"

    init(environment: [String: String] = ProcessInfo.processInfo.environment, file: String?) async throws {
        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ConfigKey(Self.environmentPrefix))
        ]
        if let file {
            guard FileManager.default.isReadableFile(atPath: file) else { throw ValidationError("--config: cannot read \(file)") }
            do {
                if file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                    providers.append(try await FileProvider<YAMLSnapshot>(filePath: .init(file)))
                } else if file.hasSuffix(".json") {
                    providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(file)))
                } else {
                    throw ValidationError("--config: \(file) must end in .json, .yaml or .yml")
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("--config: \(file) is not a configuration file of key-value pairs: \(error)")
            }
        }
        reader = ConfigReader(providers: providers)
        self.file = file
    }

    /// `dataDir` → `AUTHPHONE_DATA_DIR`, as swift-configuration's environment provider spells it.
    static func variable(_ key: String) -> String {
        var name = environmentPrefix + "_"
        for (previous, character) in zip([Character(" ")] + Array(key), key) {
            if previous.isLowercase, character.isUppercase { name += "_" }
            name += character.uppercased()
        }
        return name
    }

    // Each takes the option's flag, which wins when given.

    func string(_ key: String, _ flag: String?) async throws -> String? {
        try await read(key, flag) { try await reader.fetchString(forKey: ConfigKey(key)) }
    }
    func int(_ key: String, _ flag: Int?) async throws -> Int? {
        try await read(key, flag) { try await reader.fetchInt(forKey: ConfigKey(key)) }
    }
    func bool(_ key: String, _ flag: Bool?) async throws -> Bool? {
        try await read(key, flag) { try await reader.fetchBool(forKey: ConfigKey(key)) }
    }

    /// A string option with a fixed set of values.
    func choice<T: ExpressibleByArgument & CaseIterable>(_ key: String, _ flag: T?) async throws -> T? {
        if let flag { return flag }
        guard let text = try await string(key, nil) else { return nil }
        guard let value = T(argument: text) else {
            throw ValidationError("\(source(of: key)): '\(text)' is not one of \(T.allValueStrings.joined(separator: ", "))")
        }
        return value
    }

    private func read<T>(_ key: String, _ flag: T?, _ fetch: () async throws -> T?) async throws -> T? {
        if let flag { return flag }
        do { return try await fetch() } catch {
            throw ValidationError("\(source(of: key)) is not a valid \(T.self): \(error)")
        }
    }

    private func source(of key: String) -> String {
        Self.variable(key) + (file.map { " or '\(key)' in \($0)" } ?? "")
    }
}
