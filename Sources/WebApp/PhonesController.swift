import AuthFlow
import Foundation
import Hummingbird
import OutOfBand
import Phone

/// `/api/phones`: the simulated phones, their local data, and out-of-band input.
struct PhonesController {
    let phones: PhoneService

    struct CreatePhone: Decodable {
        let name: String
    }

    /// Exactly one of the fields: where the payload came from.
    struct OutOfBandInput: Decodable {
        let qr: String?
        let link: String?
    }

    struct PhoneList: ResponseEncodable {
        let phones: [PhoneSummary]
    }

    struct FlowStarted: ResponseEncodable {
        let flow: Flow
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post { request, context -> EditedResponse<PhoneSummary> in
            let input = try await request.decodeJSON(as: CreatePhone.self, context: context)
            return EditedResponse(status: .created, response: try await phones.createPhone(name: input.name))
        }
        routes.get { _, _ in PhoneList(phones: try await phones.phones()) }
        routes.get("{id}") { _, context in try await phones.phone(id: context.parameters.require("id")) }
        routes.post("{id}/oob") { request, context -> EditedResponse<FlowStarted> in
            let id = try context.parameters.require("id")
            let input = try await request.decodeJSON(as: OutOfBandInput.self, context: context)
            let payload: OutOfBandPayload
            do {
                switch (input.qr, input.link) {
                case (let qr?, nil): payload = try OutOfBandDecoder.decode(qrText: qr)
                case (nil, let link?): payload = try DeepLink.decode(link)
                default:
                    throw APIError(.badRequest, "INVALID_FIELD", "give exactly one of 'qr' and 'link'")
                }
            } catch let error as OutOfBandError {
                throw APIError(error)
            }
            let flow = try await phones.startOutOfBand(phoneId: id, payload: payload)
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        return routes
    }
}

