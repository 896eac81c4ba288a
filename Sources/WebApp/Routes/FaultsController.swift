import Faults
import Hummingbird
import Scenarios

/// `/api/faults`: the network failing on purpose, for one phone, the backend or the push
/// service. Every fault clears itself after its count or its time.
struct FaultsController {
    let faults: FaultInjector
    let recordings: Recordings

    struct FaultList: ResponseEncodable {
        let faults: [FaultView]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in FaultList(faults: faults.active.map(FaultView.init)) }
        routes.post { request, context -> EditedResponse<FaultView> in
            let input = try await request.decodeJSON(as: FaultRequest.self, context: context)
            let fault = try await recordings.noting({ try add(input) }) { fault, refusal in
                .faultAdded(spec: Recordings.fields(of: input), id: fault?.id, refusal: refusal)
            }
            return EditedResponse(status: .created, response: fault)
        }
        routes.delete { _, _ -> Response in
            try await recordings.noting({ faults.clear() }) { _, _ in .faultsCleared }
            return Response(status: .noContent)
        }
        routes.delete("{id}") { _, context -> Response in
            let id = try context.parameters.require("id")
            try await recordings.noting({
                guard faults.remove(id: id) else { throw APIError(.notFound, "FAULT_NOT_FOUND", "no fault \(id) is in force") }
            }) { _, refusal in .faultRemoved(id: id, refusal: refusal) }
            return Response(status: .noContent)
        }
        return routes
    }

    private func add(_ input: FaultRequest) throws -> FaultView {
        do throws(FaultError) {
            let (target, kind) = try input.parsed()
            let fault = try faults.add(target: target, kind: kind, count: input.count, lifetime: input.seconds ?? FaultRequest.defaultLifetime)
            return FaultView(fault)
        } catch {
            throw APIError(.badRequest, error.code, error.message)
        }
    }
}

extension FaultView: ResponseEncodable {}
