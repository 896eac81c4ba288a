import Hummingbird
import Phone

/// `/api/phones/{id}/otp-accounts`: the phone's otpauth:// accounts (docs/otp.md#otpauth-accounts),
/// their codes, HOTP's next code, and their removal. They come in as any scanned code does
/// (`POST /api/phones/{id}/oob`, `…/oob/image`). No answer carries a secret.
struct OTPAccountsController {
    let phones: PhoneService

    struct AccountList: ResponseEncodable {
        let accounts: [OTPAccount]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}/otp-accounts") { _, context in
            AccountList(accounts: try await phones.otpAccounts(phoneId: context.parameters.require("id")))
        }
        routes.get("{id}/otp-accounts/{account}/code") { _, context in
            try await phones.otpCode(phoneId: context.parameters.require("id"), accountId: context.parameters.require("account"))
        }
        routes.post("{id}/otp-accounts/{account}/next") { request, context in
            try await request.expectNoBody(context: context)
            return try await phones.nextOTPCode(phoneId: context.parameters.require("id"), accountId: context.parameters.require("account"))
        }
        routes.delete("{id}/otp-accounts/{account}") { _, context in
            try await phones.deleteOTPAccount(phoneId: context.parameters.require("id"), accountId: context.parameters.require("account"))
            return Response(status: .noContent)
        }
        return routes
    }
}

/// A key URI handed to the phone became this account: `POST /api/phones/{id}/oob`'s 201.
struct OTPAccountImported: ResponseEncodable {
    let otpAccount: OTPAccount
}

extension OTPCode: ResponseEncodable {}
