import SDLRPC
import SDLRuntime
import Testing

/// The BSON byte layouts of the SDL protocol (RPC payloads and control-frame payloads), SDL Core's own bytes, and generated types
/// through BSON.
@Suite struct BSONTests {
    /// Encodes `document`, expects `bytes`, and decodes `bytes` back to `document`.
    private func expectBytes(_ document: BSONDocument, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(hexString(document.encoded()) == hexString(bytes), sourceLocation: sourceLocation)
        #expect(try BSONDocument(decoding: bytes) == document, sourceLocation: sourceLocation)
    }

    @Test func emptyDocument() throws {
        try expectBytes(BSONDocument(), [0x05, 0x00, 0x00, 0x00, 0x00])
    }

    /// §12.1: the StartService(RPC) payload, 32 bytes.
    @Test func startServicePayload() throws {
        try expectBytes(
            ["protocolVersion": .string("5.4.0")],
            hex("20000000 02 70726F746F636F6C56657273696F6E 00 06000000 352E342E30 00 00"))
    }

    /// §12.1: the head unit's StartServiceACK (57 bytes; `mtu` is int64) and EndService (17 bytes).
    @Test func startServiceACKAndEndServicePayloads() throws {
        try expectBytes(
            ["protocolVersion": .string("5.4.0"), "hashId": .int32(42), "mtu": .int64(131_084)],
            hex(
                """
                39000000
                02 70726F746F636F6C56657273696F6E 00 06000000 352E342E30 00
                10 68617368496400 2A000000
                12 6D747500 0C00020000000000
                00
                """))
        try expectBytes(["hashId": .int32(42)], hex("11000000 10 68617368496400 2A000000 00"))
    }

    /// §12.3: the array element `secondaryTransports: ["TCP_WIFI"]` (42 bytes) in a document.
    @Test func secondaryTransportsArray() throws {
        let element = hex(
            """
            04 7365636F6E646172795472616E73706F72747300
            15000000
            02 3000 09000000 5443505F5749464900
            00
            """)
        #expect(element.count == 42)
        let document: [UInt8] = [47, 0, 0, 0] + element + [0]
        try expectBytes(["secondaryTransports": .array([.string("TCP_WIFI")])], document)
    }

    /// The bytes SDL Core 8.2.0 sent: decoded in its key order and written back unchanged.
    @Test func sdlCoreStartServiceACK() throws {
        let document = try BSONDocument(decoding: Fixtures.startServiceACK)
        #expect(
            document.keys == [
                "videoServiceTransports", "hashId", "model", "mtu", "modelYear", "make", "secondaryTransports",
                "systemSoftwareVersion", "trim", "audioServiceTransports", "protocolVersion",
            ])
        #expect(document["mtu"] == .int64(131_072))
        #expect(document["hashId"] == .int32(65_537))
        #expect(document["secondaryTransports"] == .array([]))
        #expect(document["videoServiceTransports"] == .array([.int32(1)]))
        #expect(document.encoded() == Fixtures.startServiceACK)
    }

    @Test func integerPicksInt32WhenItFits() {
        #expect(BSONValue.integer(0) == .int32(0))
        #expect(BSONValue.integer(-1) == .int32(-1))
        #expect(BSONValue.integer(Int(Int32.max)) == .int32(.max))
        #expect(BSONValue.integer(Int(Int32.min)) == .int32(.min))
        #expect(BSONValue.integer(Int(Int32.max) + 1) == .int64(Int64(Int32.max) + 1))
        #expect(BSONValue.integer(Int(Int32.min) - 1) == .int64(Int64(Int32.min) - 1))
        #expect(BSONValue.integer(.max) == .int64(.max))
        #expect(BSONValue.integer(.min) == .int64(.min))
    }

    @Test func doublesCompareByBits() {
        #expect(BSONValue.double(.nan) == .double(.nan))
        #expect(BSONValue.double(0.0) != .double(-0.0))
        #expect(BSONValue.int32(1) != .int64(1))
        #expect(BSONValue.double(1) != .int32(1))
    }

    // MARK: Generated types

    private static let show = Show(
        mainField1: "Now playing ♫", mainField2: "e\u{301}t\u{e9} 🚗", alignment: .centered,
        graphic: SDLImage(value: "cover.png", imageType: .dynamic, isTemplate: false),
        softButtons: [
            SoftButton(type: .text, text: "Skip", softButtonID: 1),
            SoftButton(type: .image, image: SDLImage(value: "0x11", imageType: .static), isHighlighted: true, softButtonID: 65_535),
        ],
        customPresets: ["A", "B"],
        metadataTags: MetadataTags(mainField1: [.mediaTitle, .mediaArtist]),
        windowID: 0,
        templateConfiguration: TemplateConfiguration(
            template: "MEDIA", dayColorScheme: TemplateColorScheme(primaryColor: RGBColor(red: 255, green: 0, blue: 128))))

    @Test func showRoundTripsThroughBSON() throws {
        let document = try SDLBSON.document(Self.show)
        #expect(document.keys.first == "mainField1")
        #expect(document["windowID"] == .int32(0))
        guard case .array(let buttons) = document["softButtons"], case .document(let second) = buttons[1] else {
            Issue.record("softButtons is not an array of documents: \(String(describing: document["softButtons"]))")
            return
        }
        #expect(second["softButtonID"] == .int32(65_535))
        #expect(second["isHighlighted"] == .bool(true))
        let decoded = try SDLBSON.decode(Show.self, from: try SDLBSON.encode(Self.show))
        #expect(decoded.value == Self.show)
        #expect(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty)
    }

    /// SDL Core's 9.6 KB RegisterAppInterface response, nested structs and arrays of structs,
    /// read from JSON, through BSON and back.
    @Test func registerAppInterfaceResponseRoundTripsThroughBSON() throws {
        let response = try SDLJSON.decode(RegisterAppInterfaceResponse.self, from: try Fixtures.validRegisterAppInterfaceResponse()).value
        #expect(response.displayCapabilities?.textFields.isEmpty == false)
        #expect(response.vehicleType?.make == "SDL")
        let bytes = try SDLBSON.encode(response)
        let decoded = try SDLBSON.decode(RegisterAppInterfaceResponse.self, from: bytes)
        #expect(decoded.value == response)
        // And the JSON written from the BSON-decoded value reads back the same.
        #expect(try SDLJSON.decode(RegisterAppInterfaceResponse.self, from: try SDLJSON.encode(decoded.value)).value == response)
    }

    @Test func readerAcceptsEitherIntegerWidthAndIntegersForFloats() throws {
        let document: BSONDocument = [
            "success": .bool(true), "resultCode": .string("SUCCESS"),
            "syncMsgVersion": .document(["majorVersion": .int64(8), "minorVersion": .int32(0)]),
            "supportedDiagModes": .array([.int64(1), .int32(2)]),
        ]
        let decoded = try SDLBSON.decode(RegisterAppInterfaceResponse.self, from: document).value
        #expect(decoded.syncMsgVersion?.majorVersion == 8)
        #expect(decoded.supportedDiagModes == [1, 2])
        let gps = try SDLBSON.decode(GPSData.self, from: ["longitudeDegrees": .int32(10), "latitudeDegrees": .int64(-45)]).value
        #expect(gps.longitudeDegrees == 10 && gps.latitudeDegrees == -45)
    }

    @Test func readerNamesThePathOfEveryProblem() {
        let document: BSONDocument = [
            "mainField1": .int32(5),
            "softButtons": .array([
                .document(["type": .string("TEXT"), "softButtonID": .int32(1)]),
                .document(["type": .string("TEXT"), "softButtonID": .int64(70_000)]),
                .document(["type": .string("TEXT"), "softButtonID": .double(3)]),
                .string("not a button"),
            ]),
            "windowID": .double(.nan),
            "graphic": .document(["value": .binary(subtype: 0, bytes: [1]), "imageType": .null]),
        ]
        do {
            _ = try SDLBSON.decode(Show.self, from: document)
            Issue.record("decoding should fail")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "Show.mainField1: expected String, found int32",
                    "Show.softButtons[1].softButtonID: 70000 is out of range, maxvalue is 65535",
                    "Show.softButtons[2].softButtonID: expected Integer, found double",
                    "Show.softButtons[3]: expected Object (SoftButton), found string",
                    "Show.windowID: expected Integer, found double",
                    "Show.graphic.value: expected String, found binary",
                    "Show.graphic.imageType: expected String (ImageType), found null",
                ])
        }
    }
}
