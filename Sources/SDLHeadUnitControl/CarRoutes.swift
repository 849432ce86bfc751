import Hummingbird
import SDLHeadUnit
import SDLRPC
import SDLRuntime

/// What belongs to the car and the head unit, shared by every app: driver distraction, vehicle
/// data, the route, remote-control modules, the policy, the language, the security setup.
extension SDLHeadUnitControlAPI {
    func addCarRoutes(to router: Router<Context>) {
        let headUnit = self.headUnit
        router.put("driver-distraction") { request, context in
            let state = try await request.decode(as: DriverDistractionRequest.self, context: context).state
            guard state == "DD_ON" || state == "DD_OFF" else { throw ControlError(.badRequest, DriverDistractionRequest.expected) }
            await headUnit.setDriverDistraction(state == "DD_ON")
            return Done()
        }
        router.put("security/system-time") { request, context in
            // {"ready": false}: the HMI has not given the security manager its time yet.
            await headUnit.setSystemTimeReady(try await request.decode(as: SystemTimeRequest.self, context: context).ready)
            return Done()
        }
        router.get("vehicle-data") { _, _ in
            JSONAnswer(await headUnit.vehicleData())
        }
        router.put("vehicle-data") { request, context in
            // {"speed": 88.0, ...}: the items change together, one OnVehicleData per subscribed app.
            let input = try await request.decode(as: JSONBody.self, context: context).json
            guard case .object(let members) = input, !members.isEmpty else { throw ControlError(.badRequest, #"expected {"speed": 88.0, ...}"#) }
            do throws(SDLSimulatedVehicleError) {
                try await headUnit.setVehicleData(input)
            } catch {
                throw ControlError(.badRequest, error.description)
            }
            return JSONAnswer(await headUnit.vehicleData())
        }
        router.get("waypoints") { _, _ in
            JSONAnswer(.object([.init(key: "wayPoints", value: SDLHeadUnitEmulator.wayPointsJSON(await headUnit.wayPoints))]))
        }
        router.put("waypoints") { request, context in
            // {"wayPoints": [LocationDetails, ...]}: the new route; subscribed apps hear it.
            guard case .array(let items)? = try await request.decode(as: JSONBody.self, context: context).json["wayPoints"] else {
                throw ControlError(.badRequest, #"expected {"wayPoints": [{"locationName": "...", "coordinate": {...}}, ...]}"#)
            }
            var points: [LocationDetails] = []
            for (index, item) in items.enumerated() {
                do throws(SDLDecodingError) {
                    points.append(try SDLJSON.decode(LocationDetails.self, from: item.jsonBytes).value)
                } catch {
                    throw ControlError(.badRequest, "wayPoints[\(index)]: \(error.errors.first.map { "\($0)" } ?? "\(error)")")
                }
            }
            await headUnit.setWayPoints(points)
            return Done()
        }
        router.put("policy") { request, context in
            let input = try await request.decode(as: JSONBody.self, context: context).json
            do throws(SDLHeadUnitPolicyError) {
                await headUnit.setPolicy(try SDLHeadUnitPolicy(parsing: input.jsonBytes))
            } catch {
                throw ControlError(.badRequest, "policy: \(error.description)")
            }
            return Done()
        }
        router.get("language") { _, _ in
            LanguageBody(language: await headUnit.currentLanguage.rawValue)
        }
        router.put("language") { request, context in
            let name = try await request.decode(as: LanguageBody.self, context: context).language
            let language = Language(rawValue: name)
            guard language.isRecognized else { throw ControlError(.badRequest, "\(name) is not a language of the spec") }
            await headUnit.setLanguage(language)
            return Done()
        }
        addRemoteControlRoutes(to: router)
    }

    /// Remote-control modules: their data, and the driver's consent.
    private func addRemoteControlRoutes(to router: Router<Context>) {
        let headUnit = self.headUnit
        router.put("rc/consent") { request, context in
            // The driver's answer to the next consent requests.
            await headUnit.setRemoteControlConsent(try await request.decode(as: ConsentRequest.self, context: context).allowed)
            return Done()
        }
        // /rc/CLIMATE, /rc/CLIMATE?moduleId=C1A or /rc/CLIMATE/C1A: the module's data.
        router.get("rc/:moduleType") { request, context in
            try await moduleData(context.parameters.decoded("moduleType"), moduleID: request.uri.queryParameters.get("moduleId"))
        }
        router.get("rc/:moduleType/:moduleID") { _, context in
            try await moduleData(context.parameters.decoded("moduleType"), moduleID: context.parameters.decoded("moduleID"))
        }
        router.put("rc") { request, context in
            // A ModuleData: {"moduleType": "CLIMATE", "moduleId": "C0A", "climateControlData": {...}}.
            let input = try await request.decode(as: JSONBody.self, context: context).json
            let data: ModuleData
            do throws(SDLDecodingError) {
                data = try SDLJSON.decode(ModuleData.self, from: input.jsonBytes).value
            } catch {
                throw ControlError(.badRequest, "moduleData: \(error.errors.first.map { "\($0)" } ?? "\(error)")")
            }
            try await headUnit.setModuleData(data)
            let now = await headUnit.moduleData(data.moduleType, moduleID: data.moduleId)
            return JSONAnswer(now.flatMap { try? SDLJSONValue(parsing: SDLJSON.encode($0)) } ?? .object([]))
        }
    }

    private func moduleData(_ typeName: String, moduleID: String?) async throws -> JSONAnswer {
        let type = ModuleType(rawValue: typeName)
        guard type.isRecognized else { throw ControlError(.notFound, "\(typeName) is not a module type of the spec") }
        guard let data = await headUnit.moduleData(type, moduleID: moduleID) else {
            throw SDLHeadUnitControlError.unknownModule([typeName, moduleID].compactMap { $0 }.joined(separator: " "))
        }
        return JSONAnswer((try? SDLJSONValue(parsing: SDLJSON.encode(data))) ?? .object([]))
    }
}
