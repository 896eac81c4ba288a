// libFuzzer entry point for the FCM send-request parser; built by scripts/fuzz.sh with the
// OutOfBand sources and FCMSendRequest.swift + FCMPlatformOptions.swift + FCMError.swift as one module.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFCMSend(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let request = try? FCMSendRequest.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let message = request.message
    let target: (field: String, value: String)
    switch request.target {
    case .token(let token): target = ("token", token)
    case .fid(let fid):
        precondition(FirebaseInstallationID.isWellFormed(fid), "a parsed request has a malformed fid")
        target = ("fid", fid)
    }
    precondition(!target.value.isEmpty, "a parsed request has an empty target")
    let payload =
        message.data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        + (message.notification?.title?.utf8.count ?? 0) + (message.notification?.body?.utf8.count ?? 0)
    precondition(payload <= FCMSendRequest.payloadLimit, "a parsed request is over FCM's payload limit")
    for key in message.data.keys {
        precondition(
            !FCMSendRequest.reservedKeys.contains(key) && !FCMSendRequest.reservedPrefixes.contains(where: key.hasPrefix),
            "a parsed request uses the reserved data key \(key)")
    }
    // What was accepted, written out again, parses to the same request.
    var fields: [String: Any] = [target.field: target.value, "data": message.data]
    if let notification = message.notification {
        fields["notification"] = ["title": notification.title, "body": notification.body].compactMapValues { $0 }
    }
    let json = try! JSONSerialization.data(withJSONObject: ["message": fields, "validate_only": request.validateOnly])
    precondition((try? FCMSendRequest.parse(Array(json))) == request, "FCM send request round trip failed")
    return 0
}
