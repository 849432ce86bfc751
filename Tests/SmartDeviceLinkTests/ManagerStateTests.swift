import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

/// OnHMIStatus as streams per part and per window, and the delegate form.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ManagerStateTests {
    /// Records delegate calls and hands them to the test as a stream.
    final class RecordingDelegate: SDLManagerDelegate {
        enum Call: Hashable, Sendable {
            case state(SDLManager.State)
            case level(HMILevel?, HMILevel, window: Int)
            case audio(AudioStreamingState?, AudioStreamingState)
            case video(VideoStreamingState?, VideoStreamingState)
            case context(SystemContext?, SystemContext, window: Int)
        }

        let calls: AsyncStream<Call>
        private let sink: AsyncStream<Call>.Continuation

        init() { (calls, sink) = AsyncStream.makeStream() }

        func manager(_ manager: SDLManager, didChangeState state: SDLManager.State) async { sink.yield(.state(state)) }
        func manager(_ manager: SDLManager, hmiLevelChangedFrom old: HMILevel?, to new: HMILevel, window: Int) async {
            sink.yield(.level(old, new, window: window))
        }
        func manager(_ manager: SDLManager, audioStreamingStateChangedFrom old: AudioStreamingState?, to new: AudioStreamingState) async {
            sink.yield(.audio(old, new))
        }
        func manager(_ manager: SDLManager, videoStreamingStateChangedFrom old: VideoStreamingState?, to new: VideoStreamingState) async {
            sink.yield(.video(old, new))
        }
        func manager(_ manager: SDLManager, systemContextChangedFrom old: SystemContext?, to new: SystemContext, window: Int) async {
            sink.yield(.context(old, new, window: window))
        }
    }

    @Test func audioVideoAndSystemContextAreReplayingStreams() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, media: true)) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            // A media app in FULL is audible; a late subscriber gets the current value first.
            for await state in manager.audioStreamingStates() {
                #expect(state == .audible)
                break
            }
            #expect(manager.audioStreamingState == .audible)
            for await context in manager.systemContexts() {
                #expect(context == .main)
                break
            }
            let contexts = manager.systemContexts()
            _ = try await manager.send(ShowAppMenu())
            var seen: [SystemContext] = []
            for await context in contexts {
                seen.append(context)
                if context == .menu { break }
            }
            #expect(seen == [.main, .menu])
            #expect(manager.systemContext == .menu)
            var videoStates: [VideoStreamingState] = []
            for await state in manager.videoStreamingStates() {
                videoStates.append(state)
                break
            }
            #expect(videoStates == [manager.videoStreamingState])
        }
    }

    @Test func aWidgetHasItsOwnLevelAndSystemContext() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit)) { manager in
            for await level in manager.hmiLevels() where level == .full { break }
            // Subscribed before the window exists: the stream starts with its first status.
            let widgetLevels = manager.hmiLevels(window: 7)
            #expect(manager.systemContext(window: 7) == nil)
            let created = try await manager.send(CreateWindow(windowID: 7, windowName: "Weather", type: .widget))
            #expect(created.success)
            for await level in widgetLevels {
                #expect(level == HMILevel.none)
                break
            }
            #expect(manager.systemContext(window: 7) == .main)
            // The main window is untouched by the widget's NONE.
            #expect(manager.hmiLevel == .full)
            let duplicate = try await manager.send(CreateWindow(windowID: 7, windowName: "Again", type: .widget))
            #expect(duplicate.resultCode == .invalidId)
        }
    }

    @Test func theDelegateHearsEveryChangeInOrder() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let delegate = RecordingDelegate()
        let manager = SDLManager(configuration: ManagerLifecycleTests.configuration(headUnit, media: true))
        manager.setDelegate(delegate)
        try await startRunning(manager)
        var calls: [RecordingDelegate.Call] = []
        var iterator = delegate.calls.makeAsyncIterator()
        while let call = await iterator.next() {
            calls.append(call)
            if call == .level(HMILevel.none, .full, window: 0) { break }
        }
        _ = try await manager.send(ShowAppMenu())
        while let call = await iterator.next() {
            calls.append(call)
            if case .context(_, .menu, window: 0) = call { break }
        }
        await manager.stop()
        #expect(calls.prefix(4) == [.state(.connecting), .state(.registered), .state(.settingUpManagers), .level(nil, .none, window: 0)])
        #expect(calls.contains(.state(.ready)))
        #expect(calls.contains(.audio(.notAudible, .audible)))
        #expect(calls.last == .context(.main, .menu, window: 0))
        withExtendedLifetime(delegate) {}
    }
}
