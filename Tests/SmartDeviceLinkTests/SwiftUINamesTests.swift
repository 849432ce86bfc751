import SDLRPC
import SmartDeviceLink
import Testing

#if canImport(SwiftUI)
    import SwiftUI
#else
    import SwiftUIStandIn
#endif

/// An app's view code imports SwiftUI beside the generated RPC types: every SwiftUI name stays
/// unambiguous (this file would not compile otherwise), and SDL's types of those names carry the
/// prefix `SDL`.
@Suite struct SwiftUINamesTests {
    @Test func swiftUINamesStayUnambiguousBesideTheRPCTypes() {
        let swiftUI: [Any.Type] = [
            Alert.self,
            Angle.self,
            Animation.self,
            Button.self,
            Canvas.self,
            Capsule.self,
            Circle.self,
            Color.self,
            ColorPicker.self,
            DatePicker.self,
            Divider.self,
            Edge.self,
            Ellipse.self,
            Font.self,
            Form.self,
            Gauge.self,
            Gradient.self,
            Grid.self,
            GridRow.self,
            Group.self,
            Image.self,
            Label.self,
            Layout.self,
            Link.self,
            List.self,
            Material.self,
            Menu.self,
            Path.self,
            Picker.self,
            Rectangle.self,
            Scene.self,
            Section.self,
            Shape.self,
            Slider.self,
            Spacer.self,
            Stepper.self,
            Tab.self,
            Table.self,
            Text.self,
            TextEditor.self,
            TextField.self,
            Toggle.self,
            Transaction.self,
            View.self,
            Window.self,
        ]
        let sdl: [Any.Type] = [SDLImage.self, SDLAlert.self, SDLSlider.self, SDLGrid.self, SDLRectangle.self, SDLTextField.self]
        #expect(swiftUI.count == 45)
        #expect(sdl.map { "\($0)" } == ["SDLImage", "SDLAlert", "SDLSlider", "SDLGrid", "SDLRectangle", "SDLTextField"])
        // Their responses keep the spec's names.
        #expect("\(AlertResponse.self)" == "AlertResponse" && "\(SliderResponse.self)" == "SliderResponse")
    }
}
