import Faults
import Hummingbird

/// `/api/faults`: the network failing on purpose, for one phone, the backend or the push
/// service. Every fault clears itself after its count or its time.
struct FaultsController {
    let faults: FaultInjector

    struct FaultList: ResponseEncodable {
        let faults: [FaultView]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in FaultList(faults: faults.active.map(FaultView.init)) }
        routes.post { request, context -> EditedResponse<FaultView> in
            let input = try await request.decodeJSON(as: FaultRequest.self, context: context)
            do throws(FaultError) {
                let (target, kind) = try input.parsed()
                let fault = try faults.add(
                    target: target, kind: kind, count: input.count,
                    lifetime: input.seconds ?? FaultRequest.defaultLifetime)
                return EditedResponse(status: .created, response: FaultView(fault))
            } catch {
                throw APIError(.badRequest, error.code, error.message)
            }
        }
        routes.delete { _, _ -> Response in
            faults.clear()
            return Response(status: .noContent)
        }
        routes.delete("{id}") { _, context -> Response in
            let id = try context.parameters.require("id")
            guard faults.remove(id: id) else { throw APIError(.notFound, "FAULT_NOT_FOUND", "no fault \(id) is in force") }
            return Response(status: .noContent)
        }
        return routes
    }
}

extension FaultView: ResponseEncodable {}
