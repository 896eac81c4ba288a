import BackendAPI
import Foundation

extension DemoBackend {
    /// `POST /api/backend/unblock-pin`: what the backend's administrator does for a user locked
    /// out by wrong PINs: each of the user's devices counts its PIN from zero again, blocked no
    /// more and without a penalty. Returns how many devices were blocked or counting. A user with
    /// no account here is refused (`USER_NOT_ENROLLED`) and nothing changes.
    public func unblockPin(userId: String) async throws(BackendError) -> Int {
        let time = now()
        return try await write { tx in
            let devices = Set(try tx.accounts(ofUser: userId).map(\.deviceId))
            guard !devices.isEmpty else { throw BackendError.userNotEnrolled(userId) }
            var unblocked = 0
            for deviceId in devices.sorted() {
                guard var secondFactor = try tx.secondFactor(deviceId: deviceId),
                    secondFactor.isBlocked || secondFactor.failedAttempts > 0 || secondFactor.penalisedUntil != nil
                else { continue }
                secondFactor.isBlocked = false
                secondFactor.failedAttempts = 0
                secondFactor.penalisedUntil = nil
                secondFactor.updatedAt = time
                try tx.update(secondFactor)
                unblocked += 1
            }
            return unblocked
        }
    }
}
