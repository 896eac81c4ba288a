/// The digits a replay types for each PIN's role: a recording keeps none. Each phone's PIN is
/// the last `new` one typed on it; a wrong PIN is one that differs from it. All are six digits
/// (the PIN policy's default) that the policy takes: none repeats or runs in order.
public struct PinBook: Sendable {
    /// PINs given out in turn as a walk sets new ones.
    static let fresh = ["135790", "246813", "370925", "481036", "592147", "603258", "714369", "825470"]
    static let wrongs = ["975318", "864207"]

    private var current: [String: String] = [:]
    private var given = 0

    public init() {}

    /// The digits for `role` on `phone`, keeping a new PIN as that phone's from now on.
    public mutating func digits(_ role: PinRole, on phone: String) -> String {
        switch role {
        case .new:
            let pin = Self.fresh[given % Self.fresh.count]
            given += 1
            current[phone] = pin
            return pin
        case .enrolled:
            return current[phone] ?? Self.fresh[0]
        case .wrong:
            return Self.wrongs.first { $0 != current[phone] } ?? Self.wrongs[0]
        }
    }

    /// The digits of a step's `oldPin` and `pin`, in that order: the old one is checked against
    /// the PIN before the new one replaces it.
    public mutating func digits(of step: ScenarioStep) -> (old: String?, pin: String?) {
        guard let phone = step.phone else { return (nil, nil) }
        let old = step.oldPin.map { digits($0, on: phone) }
        return (old, step.pin.map { digits($0, on: phone) })
    }
}
