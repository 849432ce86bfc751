import HelloSDL
import SDLRuntime
import Testing

/// The types the build plugin generated from Sources/HelloSDL/MOBILE_API.xml, used like any other.
@Suite struct HelloSDLTests {
    @Test func aRequestRoundTripsThroughJSON() throws {
        let request = Greet(name: PersonName(firstName: "Ada", lastName: "Lovelace"), mood: .formal)
        let bytes = try SDLJSON.encode(request)
        let json = String(decoding: bytes, as: UTF8.self)
        #expect(json.contains(#""firstName":"Ada""#))
        #expect(json.contains(#""mood":"FORMAL""#))

        let decoded = try SDLJSON.decode(Greet.self, from: bytes)
        #expect(decoded.value == request)
        #expect(decoded.warnings.isEmpty)
    }

    @Test func messagesKnowTheirFunction() {
        #expect(Greet.functionName == "Greet")
        #expect(Greet.functionIDValue == 1)
        #expect(Greet.functionID == .greetID)
        #expect(Greet.Response.self == GreetResponse.self)
        #expect(OnGreeted.functionIDValue == 32768)
        #expect(FunctionID(rawValue: "OnGreetedID") == .onGreetedID)
    }

    @Test func aResponseAndANotificationDecodeFromTheHeadUnitsJSON() throws {
        let response = try SDLJSON.decode(
            GreetResponse.self,
            from: Array(#"{"success":true,"resultCode":"SUCCESS","greeting":{"text":"Hello, Ada!","mood":"CHEERFUL","repeats":2}}"#.utf8)
        ).value
        // The spec's enum `Result` is `SDLResult` in Swift, so it never shadows Swift.Result.
        #expect(response.resultCode == SDLResult.success)
        #expect(response.greeting == Greeting(text: "Hello, Ada!", mood: .cheerful, repeats: 2))

        let notification = try Greeter.greeted(fromJSON: Array(#"{"greeting":{"text":"Hi","mood":"SLEEPY"},"count":3}"#.utf8))
        #expect(notification == OnGreeted(greeting: Greeting(text: "Hi", mood: .sleepy), count: 3))
        let again = try SDLJSON.decode(OnGreeted.self, from: try SDLJSON.encode(notification)).value
        #expect(again == notification)
    }

    @Test func theSpecsBoundsAreChecked() throws {
        // minlength="1" on Greeting.text, maxvalue="10" on Greeting.repeats.
        let error = #expect(throws: SDLValidationError.self) {
            try SDLJSON.encode(OnGreeted(greeting: Greeting(text: "", mood: .formal, repeats: 11), count: 1))
        }
        #expect(error?.issues.count == 2)
        #expect(throws: SDLDecodingError.self) {
            try SDLJSON.decode(Greet.self, from: Array(#"{"mood":"CHEERFUL"}"#.utf8))  // no name
        }
    }

    @Test func enumValuesFromANewerHeadUnitAreKept() throws {
        let decoded = try SDLJSON.decode(Greet.self, from: Array(#"{"name":{"firstName":"Bo"},"mood":"GRUMPY"}"#.utf8))
        #expect(decoded.value.mood == .unrecognized("GRUMPY"))
        #expect(!decoded.warnings.isEmpty)
    }

    @Test func handWrittenCodeUsesTheGeneratedTypes() throws {
        let bytes = try Greeter.json(for: Greeter.request(for: "Ada"))
        #expect(try SDLJSON.decode(Greet.self, from: bytes).value == Greet(name: PersonName(firstName: "Ada"), mood: .cheerful))
    }

    @Test func theCatalogDescribesTheExampleSpec() {
        #expect(MobileAPI.interfaceName == "HelloSDL")
        #expect(MobileAPI.requests.count == 1)
        #expect(MobileAPI.responses.count == 1)
        #expect(MobileAPI.notifications.count == 1)
        #expect(MobileAPI.enumerations.count == 3)
        #expect(MobileAPI.structures.count == 2)
    }
}
