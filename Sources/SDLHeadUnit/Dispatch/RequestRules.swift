import SDLConcurrency
import SDLProtocol
import SDLRPC
import SDLRuntime

/// One entry of the dispatch table: answers the requests of one function ID.
protocol RequestRoute: Sendable {
    /// The function ID this entry answers (its request's).
    var functionID: UInt32? { get }
    func answer(_ rpc: SDLRPCPayload, encrypted: Bool, on connection: EmulatedConnection, by headUnit: isolated SDLHeadUnitEmulator) async
}

/// How the head unit answers a request of a registered app: the request is decoded once, then
/// the handler of the area that owns it runs.
struct RequestRule<Request: SDLRequest>: RequestRoute {
    /// The head unit, the decoded request, its message (raw JSON and bulk data) and the app's ID.
    typealias Handler = @Sendable (isolated SDLHeadUnitEmulator, Request, SDLRPCPayload, String) -> (Reply, [SDLHeadUnitEmulator.Effect])

    let handle: Handler

    init(_ handle: @escaping Handler) {
        self.handle = handle
    }

    var functionID: UInt32? { Request.wireFunctionID }

    func answer(_ rpc: SDLRPCPayload, encrypted: Bool, on connection: EmulatedConnection, by headUnit: isolated SDLHeadUnitEmulator) async {
        await headUnit.answer(rpc, encrypted: encrypted, on: connection, by: self)
    }
}

/// RegisterAppInterface: the one request of an app that is not registered yet.
struct RegistrationRoute: RequestRoute {
    var functionID: UInt32? { RegisterAppInterface.wireFunctionID }

    func answer(_ rpc: SDLRPCPayload, encrypted: Bool, on connection: EmulatedConnection, by headUnit: isolated SDLHeadUnitEmulator) async {
        await headUnit.answerRegistration(rpc, on: connection)
    }
}

extension SDLHeadUnitEmulator {
    /// The dispatch table, by function ID: every request of the spec, the ones without a rule
    /// answered with the smallest valid successful response (SDL Core's stand-in HMI accepts them).
    static let requestRoutes: [UInt32: any RequestRoute] = {
        var table: [UInt32: any RequestRoute] = [:]
        for type in MobileAPI.requests {
            if let functionID = type.wireFunctionID { table[functionID] = stockRule(type) }
        }
        for route in routes {
            if let functionID = route.functionID { table[functionID] = route }
        }
        return table
    }()

    private static func stockRule<R: SDLRequest>(_: R.Type) -> any RequestRoute {
        RequestRule<R> { headUnit, _, _, _ in
            (Reply(parameters: headUnit.defaults.successResponse(R.Response.structInfo)) ?? .success(), [])
        }
    }

    /// Each request with a rule, by area.
    private static let routes: [any RequestRoute] = [
        // Apps
        RegistrationRoute(),
        RequestRule<UnregisterAppInterface> { $0.unregister($1, appID: $3) },
        RequestRule<ChangeRegistration> { $0.changeRegistration($1, appID: $3) },
        RequestRule<CloseApplication> { headUnit, _, _, appID in headUnit.closeApplication(appID: appID) },
        // Screen
        RequestRule<Show> { $0.show($1, rpc: $2, appID: $3) },
        RequestRule<SetDisplayLayout> { $0.setDisplayLayout($1, rpc: $2, appID: $3) },
        RequestRule<SetMediaClockTimer> { $0.setMediaClockTimer($1, rpc: $2, appID: $3) },
        RequestRule<SetGlobalProperties> { $0.setGlobalProperties($1, rpc: $2, appID: $3) },
        RequestRule<ResetGlobalProperties> { $0.resetGlobalProperties($1, appID: $3) },
        RequestRule<CreateWindow> { $0.createWindow($1, appID: $3) },
        RequestRule<DeleteWindow> { $0.deleteWindow($1, appID: $3) },
        RequestRule<GetSystemCapability> { $0.getSystemCapability($1, appID: $3) },
        // Menu and choice sets
        RequestRule<AddCommand> { $0.addCommand($1, rpc: $2, appID: $3) },
        RequestRule<DeleteCommand> { $0.deleteCommand($1, appID: $3) },
        RequestRule<AddSubMenu> { $0.addSubMenu($1, rpc: $2, appID: $3) },
        RequestRule<DeleteSubMenu> { $0.deleteSubMenu($1, appID: $3) },
        RequestRule<ShowAppMenu> { $0.showAppMenu($1, appID: $3) },
        RequestRule<CreateInteractionChoiceSet> { $0.createChoiceSet($1, rpc: $2, appID: $3) },
        RequestRule<DeleteInteractionChoiceSet> { $0.deleteChoiceSet($1, appID: $3) },
        // Buttons
        RequestRule<SubscribeButton> { $0.subscribeButton($1, appID: $3) },
        RequestRule<UnsubscribeButton> { $0.unsubscribeButton($1, appID: $3) },
        // Interactions and speech
        // Core checks them; the HMI shows them (the built-in one: `showInteraction`).
        RequestRule<SDLAlert> { headUnit, _, rpc, appID in headUnit.checkInteraction(.alert, rpc: rpc, appID: appID) },
        RequestRule<SubtleAlert> { headUnit, _, rpc, appID in headUnit.checkInteraction(.subtleAlert, rpc: rpc, appID: appID) },
        RequestRule<PerformInteraction> { $0.performInteraction($1, rpc: $2, appID: $3) },
        RequestRule<SDLSlider> { headUnit, _, rpc, appID in headUnit.checkInteraction(.slider, rpc: rpc, appID: appID) },
        RequestRule<ScrollableMessage> { headUnit, _, rpc, appID in headUnit.checkInteraction(.scrollableMessage, rpc: rpc, appID: appID) },
        RequestRule<CancelInteraction> { $0.cancelInteraction($1, appID: $3) },
        RequestRule<Speak> { $0.speak($1, rpc: $2, appID: $3) },
        RequestRule<PerformAudioPassThru> { $0.performAudioPassThru($1, rpc: $2, appID: $3) },
        RequestRule<EndAudioPassThru> { headUnit, _, rpc, appID in headUnit.endAudioPassThru(rpc: rpc, appID: appID) },
        // Phone and navigation
        RequestRule<DialNumber> { $0.dialNumber($1, appID: $3) },
        RequestRule<SendLocation> { $0.sendLocation($1, rpc: $2, appID: $3) },
        RequestRule<ShowConstantTBT> { headUnit, _, rpc, appID in headUnit.showConstantTBT(rpc: rpc, appID: appID) },
        RequestRule<AlertManeuver> { headUnit, _, rpc, appID in headUnit.alertManeuver(rpc: rpc, appID: appID) },
        RequestRule<UpdateTurnList> { headUnit, _, rpc, appID in headUnit.updateTurnList(rpc: rpc, appID: appID) },
        RequestRule<GetWayPoints> { headUnit, request, _, _ in headUnit.getWayPoints(request) },
        RequestRule<SubscribeWayPoints> { headUnit, _, _, appID in headUnit.subscribeWayPoints(appID: appID, subscribe: true) },
        RequestRule<UnsubscribeWayPoints> { headUnit, _, _, appID in headUnit.subscribeWayPoints(appID: appID, subscribe: false) },
        // Remote control
        RequestRule<GetInteriorVehicleData> { $0.getInteriorVehicleData($1, appID: $3) },
        RequestRule<SetInteriorVehicleData> { $0.setInteriorVehicleData($1, rpc: $2, appID: $3) },
        RequestRule<GetInteriorVehicleDataConsent> { $0.getInteriorVehicleDataConsent($1, appID: $3) },
        RequestRule<ReleaseInteriorVehicleDataModule> { $0.releaseInteriorVehicleDataModule($1, appID: $3) },
        RequestRule<ButtonPress> { $0.buttonPress($1, appID: $3) },
        // Files and system requests
        RequestRule<PutFile> { $0.putFile($1, rpc: $2, appID: $3) },
        RequestRule<ListFiles> { headUnit, _, _, appID in headUnit.listFiles(appID: appID) },
        RequestRule<DeleteFile> { $0.deleteFile($1, appID: $3) },
        RequestRule<GetFile> { $0.getFile($1, appID: $3) },
        RequestRule<SendHapticData> { $0.sendHapticData($1, rpc: $2, appID: $3) },
        RequestRule<GetCloudAppProperties> { headUnit, request, _, _ in headUnit.getCloudAppProperties(request) },
        RequestRule<SetCloudAppProperties> { headUnit, request, _, _ in headUnit.setCloudAppProperties(request) },
        RequestRule<SetAppIcon> { $0.setAppIcon($1, appID: $3) },
        RequestRule<SystemRequest> { $0.systemRequest($1, rpc: $2, appID: $3) },
        // Vehicle data
        RequestRule<GetVehicleData> { headUnit, _, rpc, appID in headUnit.getVehicleData(rpc: rpc, appID: appID) },
        RequestRule<SubscribeVehicleData> { headUnit, _, rpc, appID in headUnit.subscribeVehicleData(rpc: rpc, appID: appID, subscribe: true) },
        RequestRule<UnsubscribeVehicleData> { headUnit, _, rpc, appID in headUnit.subscribeVehicleData(rpc: rpc, appID: appID, subscribe: false) },
        // App services
        RequestRule<PublishAppService> { $0.publishAppService($1, appID: $3) },
        RequestRule<UnpublishAppService> { $0.unpublishAppService($1, appID: $3) },
        RequestRule<GetAppServiceData> { $0.getAppServiceData($1, rpc: $2, appID: $3) },
        RequestRule<PerformAppServiceInteraction> { $0.performAppServiceInteraction($1, rpc: $2, appID: $3) },
    ]

    // MARK: Answering

    /// Answers a request from the table: SDL Core's checks (registered, policy, limits, an app
    /// service that handles it), then the rule.
    func answer<R: SDLRequest>(_ rpc: SDLRPCPayload, encrypted: Bool, on connection: EmulatedConnection, by rule: RequestRule<R>) async {
        guard let responseID = R.Response.wireFunctionID else { return }
        let appID = appID(on: connection)
        var reply: Reply
        var effects: [Effect] = []
        // Like SDL Core: a request that breaks the spec is answered INVALID_DATA.
        switch SDLJSONDecoding.decode(R.self, from: rpc.json) {
        case .failure(let error):
            reply = .failure(.invalidData, SDLJSONDecoding.invalidDataInfo(error))
        case .success(let request):
            if let appID, apps[appID] != nil {
                emit(.requestReceived(appID: appID, function: R.functionName))
                if let refusal = refusal(of: R.functionName, rpc: rpc, appID: appID, encrypted: encrypted) {
                    reply = refusal
                } else if let check = Self.coreChecks[R.functionName], let app = apps[appID],
                    let failure = check((try? SDLJSONValue(parsing: rpc.json)) ?? .object([]), app)
                {
                    reply = failure
                } else if let provider = appServices.handlingProvider(of: rpc.functionID, for: appID) {
                    (reply, effects) = forward(rpc, from: appID, to: provider)
                } else {
                    // The app's state before the rule: what the HMI refuses must not have changed it.
                    let before = hmi.isReady ? apps[appID] : nil
                    (reply, effects) = rule.handle(self, request, rpc, appID)
                    // What the Core half accepted goes on to the HMI (a connected one, else the
                    // built-in one), and its answer decides the app's.
                    if Self.forwardedFunctions.contains(R.functionName),
                        let forwarded = forwardedToHMI(
                            R.functionName, rpc: rpc, appID: appID, responseID: responseID, builtIn: (reply, effects), before: before,
                            reapply: { headUnit in rule.handle(headUnit, request, rpc, appID).1 })
                    {
                        (reply, effects) = forwarded
                    }
                }
            } else {
                reply = .failure(.applicationNotRegistered, nil)
            }
        }
        // An app that just unregistered still gets (and records) its answer.
        if !reply.isDeferred {
            await send(reply.payload(functionID: responseID, correlationID: rpc.correlationID), on: connection, appID: self.appID(on: connection) ?? appID)
        }
        await perform(effects)
    }

    /// RegisterAppInterface; one SDL Core cannot read ends the RPC service after its answer.
    func answerRegistration(_ rpc: SDLRPCPayload, on connection: EmulatedConnection) async {
        guard let responseID = RegisterAppInterfaceResponse.wireFunctionID else { return }
        let appID = appID(on: connection)
        let reply: Reply
        var effects: [Effect] = []
        switch SDLJSONDecoding.decode(RegisterAppInterface.self, from: rpc.json) {
        case .failure(let error):
            reply = .failure(.invalidData, SDLJSONDecoding.invalidDataInfo(error))
            if appID == nil {
                await send(reply.payload(functionID: responseID, correlationID: rpc.correlationID), on: connection, appID: nil)
                await connection.close(endService: true)
                return
            }
        case .success(let registration):
            (reply, effects) = register(registration, on: connection.id)
            if reply.isSuccess {
                registered(Self.key(of: registration), on: connection)
                record(Self.key(of: registration), direction: "in", rpc)
                effects += hmiAppRegistered(Self.key(of: registration))
            }
        }
        await send(reply.payload(functionID: responseID, correlationID: rpc.correlationID), on: connection, appID: self.appID(on: connection) ?? appID)
        // SDL Core sends a failed registration (DUPLICATE_NAME, DISALLOWED...) as the session's last
        // message, then ends it; only "already registered" leaves the session open.
        if appID == nil, self.appID(on: connection) == nil, !reply.isSuccess, reply.resultCode != .applicationRegisteredAlready {
            await connection.close(endService: true)
            return
        }
        await perform(effects)
    }

    /// The policy's and the limits' answer to a request, nil when it may go on.
    private func refusal(of function: String, rpc: SDLRPCPayload, appID: String, encrypted: Bool) -> Reply? {
        guard let app = apps[appID] else { return .failure(.applicationNotRegistered, nil) }
        if let invalid = onlyUnknownItems(rpc, function: function) { return invalid }
        switch policy.decide(function, level: app.hmiLevel, appID: appID, updated: app.policyUpdated, parameters: Self.requestedParameters(rpc)) {
        case .allowed: break
        case .disallowed(let info): return .failure(.disallowed, info)
        }
        // SDL Core: an RPC of a group with encryption_required, sent in plain text.
        if !encrypted, policy.requiresEncryption(function, appID: appID, updated: app.policyUpdated) {
            return .failure(.encryptionNeeded, "\(function) needs encryption: send it on the protected RPC service")
        }
        if let info = apps[appID]?.limits.check(function, level: app.hmiLevel, now: configuration.clock.now) {
            return .failure(.rejected, info)
        }
        return nil
    }

    /// The parameter names of a request, for the policy's parameter permissions.
    private static func requestedParameters(_ rpc: SDLRPCPayload) -> [String] {
        guard case .object(let members)? = try? SDLJSONValue(parsing: rpc.json) else { return [] }
        return members.map(\.key)
    }
}
