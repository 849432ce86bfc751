import Hummingbird
import SDLHeadUnit
import SDLRPC

/// The driver's hands: buttons, menu commands, answers to what is on top, the keyboard, and
/// touches on a navigation or projection app's video.
extension SDLHeadUnitControlAPI {
    func addDriverRoutes(to router: Router<Context>) {
        let headUnit = self.headUnit
        router.post("buttons/:name/press") { request, context in
            let name = context.parameters.decoded("name")
            let button = ButtonName(rawValue: name)
            guard button.isRecognized else { throw ControlError(.notFound, "\(name) is not a button of the spec") }
            await headUnit.press(button, mode: try await request.decode(as: PressRequest.self, context: context).pressMode())
            return Done()
        }
        router.post("apps/:appID/softbuttons/:buttonID/press") { request, context in
            let id = context.parameters.decoded("buttonID")
            guard let buttonID = Int(id) else { throw ControlError(.badRequest, "\(id) is not a soft button ID") }
            let mode = try await request.decode(as: PressRequest.self, context: context).pressMode()
            try await headUnit.pressSoftButton(appID: context.appID, id: buttonID, mode: mode)
            return Done()
        }
        router.post("apps/:appID/subtle-alert/press") { _, context in
            // The driver taps the subtle alert itself (not one of its soft buttons).
            try await headUnit.pressSubtleAlert(appID: context.appID)
            return Done()
        }
        router.post("apps/:appID/commands/:cmdID/select") { _, context in
            let id = context.parameters.decoded("cmdID")
            guard let cmdID = Int(id) else { throw ControlError(.badRequest, "\(id) is not a command ID") }
            try await headUnit.selectCommand(appID: context.appID, cmdID: cmdID)
            return Done()
        }
        router.post("apps/:appID/interaction") { request, context in
            let answer = try await request.decode(as: InteractionRequest.self, context: context).answer()
            try await headUnit.answerInteraction(appID: context.appID, answer)
            return Done()
        }
        router.post("apps/:appID/keyboard") { request, context in
            let text = try await request.decode(as: KeyboardRequest.self, context: context).type
            try await headUnit.typeOnKeyboard(appID: context.appID, text)
            return Done()
        }
        router.post("apps/:appID/keyboard/mask") { request, context in
            // The driver hides (or shows) the typed characters.
            let masked = try await request.decode(as: KeyboardMaskRequest.self, context: context).masked
            try await headUnit.setKeyboardMasked(appID: context.appID, masked)
            return Done()
        }
        router.post("apps/:appID/touch") { request, context in
            let body = try await request.decode(as: TouchRequest.self, context: context)
            let type = TouchType(rawValue: body.type)
            guard type.isRecognized else { throw ControlError(.badRequest, TouchRequest.expected) }
            return DeliveredAnswer(delivered: try await headUnit.touch(appID: context.appID, type, body.touchPoints))
        }
        router.post("apps/:appID/gestures") { request, context in
            let body = try await request.decode(as: GestureRequest.self, context: context)
            let appID = context.appID
            let delivered: Bool
            switch body.gesture {
            case "tap": delivered = try await headUnit.tap(appID: appID, x: body.x, y: body.y)
            case "doubleTap": delivered = try await headUnit.doubleTap(appID: appID, x: body.x, y: body.y)
            case "pan":
                guard let toX = body.toX, let toY = body.toY else { throw ControlError(.badRequest, "pan needs toX and toY") }
                delivered = try await headUnit.pan(appID: appID, from: (body.x, body.y), to: (toX, toY))
            case "pinch":
                guard let from = body.from, let to = body.to else { throw ControlError(.badRequest, "pinch needs from and to (finger distances)") }
                delivered = try await headUnit.pinch(appID: appID, center: (body.x, body.y), fromDistance: from, toDistance: to)
            default:
                throw ControlError(.badRequest, "unknown gesture \(body.gesture)")
            }
            return DeliveredAnswer(delivered: delivered)
        }
    }
}
