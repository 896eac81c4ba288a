import ArgumentParser
import BackendAPI
import Foundation
import LoadGenerator
import OutOfBand
import PushService

/// `authphone push`: posts an FCM message to a running AuthPhone (or any FCM v1 endpoint).
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an FCM HTTP v1 message to a phone of a running AuthPhone.",
        discussion: """
            The message is JSON: a whole send request ({"message": {...}}) or just the message
            object ({"data": {...}, "notification": {...}}). --token, --fid, or the token of the
            phone --phone names (by id or name, on --server), sets or replaces its target.
            Without --file the message is read from standard input.
            """)

    @Option(help: "The phone's FCM registration token.") var token: String?
    @Option(help: "The phone's Firebase installation id, instead of --token.") var fid: String?
    @Option(help: "The phone, by id or name, whose token to send to.") var phone: String?
    @Option(help: "A file with the message JSON (default: standard input).") var file: String?
    @Option(help: "Base URL of the push service.") var server = "http://127.0.0.1:8080"
    @Option(help: "Firebase project id.") var project = "authphone"
    @Flag(help: "Ask the push service to check the message without delivering it.") var validateOnly = false
    @Option(help: "Bearer token for the push service: its --push-token or access key (default: AUTHPHONE_PUSH_TOKEN, else AUTHPHONE_ACCESS_KEY).")
    var bearer: String?

    func validate() throws {
        guard WireHTTPClient.sendableURL(server) != nil else {
            throw ValidationError("--server must be an absolute http(s) URL with a port from 1 to 65535")
        }
        guard [token, fid, phone].compactMap({ $0 }).count == 1 else { throw ValidationError("give exactly one of --token, --fid and --phone") }
    }

    func run() async throws {
        let target: String
        if let phone {
            do { target = try await PhoneRemote(url: server).phone(phone)["fcmToken"] as? String ?? "" } catch let failure as LoadFailure {
                FileHandle.standardError.write(Data("\(failure.code): \(failure.detail)\n".utf8))
                throw ExitCode(1)
            }
        } else {
            target = token ?? ""
        }
        let input = try file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? FileHandle.standardInput.readDataToEndOfFile()
        guard let object = try? JSONSerialization.jsonObject(with: input) as? [String: Any] else {
            throw ValidationError("the message is not a JSON object")
        }
        var message = try Self.message(object, bytes: input)
        for field in FCMSendRequest.targetFields { message[field] = nil }
        if let fid { message["fid"] = fid } else { message["token"] = target }
        var request: [String: Any] = ["message": message]
        if validateOnly { request["validate_only"] = true }
        let body = try JSONSerialization.data(withJSONObject: request)

        let environment = ProcessInfo.processInfo.environment
        let credential = bearer ?? environment["AUTHPHONE_PUSH_TOKEN"] ?? environment["AUTHPHONE_ACCESS_KEY"]
        let answer = try await WireHTTPClient(authorization: { _ in credential.map { "Bearer \($0)" } })
            .post(server + FCMSend.path(project: project), bytes: body)
        let text = String(buffer: answer.body)
        guard answer.isSuccess else {
            FileHandle.standardError.write(Data("HTTP \(answer.status): \(text)\n".utf8))
            throw ExitCode(1)
        }
        print(text)
    }

    /// The FCM message to send: a send request's message or a bare message as it is; the shape
    /// an app receives, Android's data map or iOS's `userInfo` (as copied from a device log)
    /// turned into its data and banner.
    static func message(_ object: [String: Any], bytes: Data) throws -> [String: Any] {
        if let message = object["message"] as? [String: Any] { return message }
        if !object.isEmpty, object.keys.allSatisfy(FCMSendRequest.knownMessageFields.contains), object["data"] != nil || object["notification"] != nil
        {
            return object
        }
        let received: PushMessage
        do { received = try PushDecoder.decode(json: Array(bytes)) } catch { throw ValidationError("the message: \(error.message)") }
        var message: [String: Any] = ["data": received.data]
        if let banner = received.notification {
            message["notification"] = ["title": banner.title, "body": banner.body].compactMapValues { $0 }
        }
        return message
    }
}
