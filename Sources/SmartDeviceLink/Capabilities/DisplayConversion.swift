import SDLRPC

/// The two display models: the legacy one of the registration and SetDisplayLayout responses
/// (`displayCapabilities` with buttons, soft buttons and presets beside it) and the RPC 6.0 one
/// (`DISPLAYS`: displays with windows). Apps read the 6.0 model whatever the head unit speaks;
/// the screen manager needs the legacy one for head units before 6.0.
public enum SDLDisplayConversion {
    /// The legacy capabilities of a registration (or SetDisplayLayout) as a 6.0 display with
    /// one main window.
    public static func displays(
        from legacy: DisplayCapabilities, buttons: [ButtonCapabilities]? = nil,
        softButtons: [SoftButtonCapabilities]? = nil, presetBank: PresetBankCapabilities? = nil
    ) -> [DisplayCapability] {
        // The legacy model has only the main window; dynamic images are what `graphicSupported` means.
        let window = WindowCapability(
            windowID: 0, textFields: legacy.textFields, imageFields: legacy.imageFields,
            imageTypeSupported: legacy.graphicSupported ? [.static, .dynamic] : [.static],
            templatesAvailable: legacy.templatesAvailable, numCustomPresetsAvailable: legacy.numCustomPresetsAvailable,
            buttonCapabilities: buttons, softButtonCapabilities: softButtons)
        return [
            DisplayCapability(
                displayName: legacy.displayName ?? legacy.displayType.rawValue,
                windowTypeSupported: [WindowTypeCapabilities(type: .main, maximumNumberOfWindows: 1)],
                windowCapabilities: [window])
        ]
    }

    /// What the legacy model can say about a 6.0 display's main window.
    public struct Legacy: Sendable, Hashable {
        /// The main window as the legacy display model: text and image fields, templates, presets.
        public var displayCapabilities: DisplayCapabilities
        /// The main window's hardware and template buttons, if the display lists them.
        public var buttonCapabilities: [ButtonCapabilities]?
        /// The main window's soft button capabilities, if the display lists them.
        public var softButtonCapabilities: [SoftButtonCapabilities]?
    }

    /// The main window of the first display in the legacy model; nil when there is none.
    /// `previous` keeps what the 6.0 model does not carry (media clock formats, screen params,
    /// the display type).
    public static func legacy(from displays: [DisplayCapability], previous: DisplayCapabilities? = nil) -> Legacy? {
        guard let display = displays.first,
            let main = display.windowCapabilities?.first(where: { ($0.windowID ?? 0) == 0 })
        else { return nil }
        let capabilities = DisplayCapabilities(
            displayType: previous?.displayType ?? .sdlGeneric, displayName: display.displayName,
            textFields: main.textFields ?? [], imageFields: main.imageFields,
            mediaClockFormats: previous?.mediaClockFormats ?? [],
            graphicSupported: main.imageTypeSupported?.contains(.dynamic) ?? false,
            templatesAvailable: main.templatesAvailable, screenParams: previous?.screenParams,
            numCustomPresetsAvailable: main.numCustomPresetsAvailable)
        return Legacy(displayCapabilities: capabilities, buttonCapabilities: main.buttonCapabilities, softButtonCapabilities: main.softButtonCapabilities)
    }

    /// An OnSystemCapabilityUpdated(DISPLAYS) carries only the windows that changed: they replace
    /// the windows of the same ID on the display of the same name; other displays are added.
    static func merge(_ update: [DisplayCapability], into current: [DisplayCapability]) -> [DisplayCapability] {
        var merged = current
        for display in update {
            guard let index = merged.firstIndex(where: { $0.displayName == display.displayName }) else {
                merged.append(display)
                continue
            }
            var existing = merged[index]
            if let types = display.windowTypeSupported { existing.windowTypeSupported = types }
            var windows = existing.windowCapabilities ?? []
            for window in display.windowCapabilities ?? [] {
                if let old = windows.firstIndex(where: { ($0.windowID ?? 0) == (window.windowID ?? 0) }) {
                    windows[old] = window
                } else {
                    windows.append(window)
                }
            }
            existing.windowCapabilities = windows
            merged[index] = existing
        }
        return merged
    }
}
