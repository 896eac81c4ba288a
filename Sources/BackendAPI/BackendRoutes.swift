import Foundation

/// The backend's routes: the templates its server matches and the paths a phone calls, both
/// relative to the backend's base URL.
public enum BackendRoutes {
    /// Where the server mounts the backend's routes.
    public static let root = "/api/backend"
    /// The name of the session's path parameter in the templates.
    public static let sessionParameter = "id"

    /// Each route's path under `root` as the server matches it; the phone's paths below are
    /// made from these, so a path is written once.
    public enum Template {
        public static let sessions = "sessions"
        public static let session = "sessions/{\(sessionParameter)}"
        public static let otpLogin = session + "/otp-login"
        public static let qrImage = session + "/qr.svg"
        /// The console pushes a waiting session to one phone.
        public static let push = session + "/push"
        public static let secondFactorPolicy = "second-factor-policy"
        public static let serverFlags = "server-flags"
        /// The backend's name, URL, key and their visual hash, as the console shows them beside an enrolment.
        public static let server = "server"
        /// The administrator's unblocking of a user's PIN.
        public static let unblockPin = "unblock-pin"
        public static let redeem = "redeem"
        public static let confirm = session + "/confirm"
        public static let enrol = session + "/enrol"
        public static let verifySecondFactor = session + "/verify"
        public static let confirmTransaction = session + "/transaction"
        public static let abandon = session + "/abandon"
        public static let setSecondFactor = session + "/second-factor"
        public static let rotate = session + "/rotate"
        public static let pending = "pending"
        public static let management = "management"
        public static let devices = "devices"
        public static let accountRemoval = "accounts/remove"
    }

    public static let redeem = path(Template.redeem)
    public static func confirm(_ session: String) -> String { path(Template.confirm, session: session) }
    public static func enrol(_ session: String) -> String { path(Template.enrol, session: session) }
    public static func verifySecondFactor(_ session: String) -> String { path(Template.verifySecondFactor, session: session) }
    public static func confirmTransaction(_ session: String) -> String { path(Template.confirmTransaction, session: session) }
    public static func abandon(_ session: String) -> String { path(Template.abandon, session: session) }
    public static func setSecondFactor(_ session: String) -> String { path(Template.setSecondFactor, session: session) }
    public static func rotate(_ session: String) -> String { path(Template.rotate, session: session) }
    public static func qrImage(_ session: String) -> String { path(Template.qrImage, session: session) }
    public static let pending = path(Template.pending)
    public static let management = path(Template.management)
    public static let devices = path(Template.devices)
    public static let accountRemoval = path(Template.accountRemoval)

    static func path(_ template: String) -> String { root + "/" + template }

    /// Every template of a session's route begins with `Template.session`, so the id goes in
    /// at a known place (a search-and-replace was nearly a percent of a login's CPU).
    static func path(_ template: String, session: String) -> String {
        precondition(template.hasPrefix(Template.session), "a session's route template begins with Template.session")
        return root + "/" + Template.sessions + "/" + session + template.dropFirst(Template.session.count)
    }
}
