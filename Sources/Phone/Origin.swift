import Foundation

/// Where a URL points, as `scheme://host[:port]`, for comparing against the allow-list.
func origin(of url: URL) -> String? {
    guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
    let defaultPort = scheme == "https" ? 443 : 80
    if let port = url.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
    return "\(scheme)://\(host)"
}
