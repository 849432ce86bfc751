import SDLRPC
import SDLTransport
import Testing

@testable import SmartDeviceLink

/// The manager's lifecycle as a value, driven event by event: no emulator, no socket, no clock.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct LifecycleStateMachineTests {
    typealias Machine = ManagerLifecycle<String>

    /// `#expect` cannot take a mutating call.
    private func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(condition, sourceLocation: sourceLocation)
    }

    private func machine(_ policy: SDLReconnectPolicy = .standard) -> Machine { Machine(reconnectPolicy: policy) }

    /// Runs the machine from idle to Ready on connection `name`.
    private func ready(_ machine: inout Machine, on name: String = "c1") {
        #expect(machine.run() == .start)
        check(machine.transportConnected(name))
        check(machine.registered())
        check(machine.settingUp())
        check(machine.ready())
    }

    @Test func theHappyPathGoesThroughEveryPublicState() {
        var machine = machine()
        #expect(machine.publicState == .stopped)
        #expect(machine.run() == .start)
        #expect(machine.publicState == .connecting)
        #expect(machine.readyConnection == nil)
        check(machine.transportConnected("c1"))
        #expect(machine.publicState == .connecting)
        check(machine.registered())
        #expect(machine.publicState == .registered)
        #expect(machine.registeredConnection == "c1")
        #expect(machine.readyConnection == nil)
        check(machine.settingUp())
        #expect(machine.publicState == .settingUpManagers)
        check(machine.ready())
        #expect(machine.publicState == .ready)
        #expect(machine.readyConnection == "c1")
    }

    @Test func stopBeforeRunMakesRunReturnAtOnce() {
        var machine = machine()
        guard case .none = machine.stop() else {
            Issue.record("nothing to do before run")
            return
        }
        #expect(machine.isStopped)
        #expect(machine.run() == .returnAtOnce)
        #expect(machine.run() == .returnAtOnce)
        #expect(machine.publicState == .stopped)
        #expect(machine.failure == nil)
    }

    @Test func runTwiceIsAClearError() {
        var machine = machine()
        #expect(machine.run() == .start)
        #expect(machine.run() == .refuse(.alreadyRunning))
        check(machine.transportConnected("c1") && machine.registered() && machine.settingUp() && machine.ready())
        #expect(machine.run() == .refuse(.alreadyRunning))
        #expect(machine.readyConnection == "c1")
    }

    @Test func aStoppedManagerIsOneShot() {
        var machine = machine()
        ready(&machine)
        guard case .unregisterAndClose("c1") = machine.stop() else {
            Issue.record("unregister and close c1")
            return
        }
        #expect(machine.run() == .refuse(.alreadyRunning))  // still stopping
        machine.runEnded(nil)
        #expect(machine.run() == .refuse(.alreadyStopped))
        #expect(machine.publicState == .stopped)
    }

    @Test func stopWhileDialingCancelsTheDial() {
        var machine = machine()
        _ = machine.run()
        guard case .cancelConnecting = machine.stop() else {
            Issue.record("cancel the dial")
            return
        }
        #expect(machine.publicState == .stopping)
        // The dial that finishes anyway is closed, not registered.
        check(!machine.transportConnected("late"))
        guard case .stopping("late") = machine.state else {
            Issue.record("holds the late connection")
            return
        }
        guard case .finish = machine.connectionEnded(.closedByApp) else {
            Issue.record("finish")
            return
        }
        machine.runEnded(nil)
        #expect(machine.isStopped && machine.failure == nil)
    }

    @Test func stopWhileRegisteringClosesTheConnection() {
        var machine = machine()
        _ = machine.run()
        check(machine.transportConnected("c1"))
        guard case .close("c1") = machine.stop() else {
            Issue.record("close c1")
            return
        }
        check(!machine.registered())
        check(!machine.settingUp())
        check(!machine.ready())
        #expect(machine.readyConnection == nil)
        guard case .finish = machine.connectionEnded(.transportClosed) else {
            Issue.record("a stop never reconnects")
            return
        }
    }

    @Test func stopWhileSettingUpUnregisters() {
        var machine = machine()
        _ = machine.run()
        _ = machine.transportConnected("c1")
        _ = machine.registered()
        _ = machine.settingUp()
        guard case .unregisterAndClose("c1") = machine.stop() else {
            Issue.record("unregister c1")
            return
        }
        check(!machine.ready())
    }

    @Test func stopWhileReconnectingCancelsTheBackOff() {
        var machine = machine()
        ready(&machine)
        guard case .reconnect = machine.connectionEnded(.transportClosed) else {
            Issue.record("reconnect")
            return
        }
        #expect(machine.publicState == .reconnecting)
        guard case .cancelConnecting = machine.stop() else {
            Issue.record("cancel the back-off")
            return
        }
        check(!machine.backOffEnded())
        guard case .none = machine.stop() else {
            Issue.record("a second stop does nothing more")
            return
        }
    }

    @Test func aDropThatAllowsReconnectionBacksOffThenConnectsAgain() {
        var machine = machine(SDLReconnectPolicy(maxAttempts: 3, initialDelay: .seconds(1), maxDelay: .seconds(10)))
        ready(&machine)
        guard case .reconnect(let delay, let attempt) = machine.connectionEnded(.heartbeatTimeout) else {
            Issue.record("reconnect after a heartbeat timeout")
            return
        }
        #expect(attempt == 1)
        #expect(delay == .seconds(1))
        guard case .reconnecting(1, .heartbeatTimeout) = machine.state else {
            Issue.record("reconnecting, attempt 1")
            return
        }
        check(machine.backOffEnded())
        #expect(machine.publicState == .reconnecting)  // dialing again shows as reconnecting
        // The dial fails: attempt 2, a longer back-off.
        guard case .reconnect(let second, 2) = machine.connectionEnded(.transportFailed(.closed)) else {
            Issue.record("attempt 2")
            return
        }
        #expect(second == .seconds(2))
        check(machine.backOffEnded())
        // The third failure spends the attempts.
        guard case .fail(.connectionLost(.transportFailed(.closed))) = machine.connectionEnded(.transportFailed(.closed)) else {
            Issue.record("give up after maxAttempts")
            return
        }
    }

    @Test func aConnectionThatWorkedStartsTheCountAgain() {
        var machine = machine(SDLReconnectPolicy(maxAttempts: 2))
        ready(&machine)
        guard case .reconnect(_, 1) = machine.connectionEnded(.transportClosed) else {
            Issue.record("attempt 1")
            return
        }
        check(machine.backOffEnded())
        check(machine.transportConnected("c2"))
        check(machine.registered() && machine.settingUp() && machine.ready())
        #expect(machine.readyConnection == "c2")
        guard case .reconnect(_, 1) = machine.connectionEnded(.endedByHeadUnit) else {
            Issue.record("attempt 1 again")
            return
        }
    }

    @Test func aDropThatForbidsReconnectionFails() {
        var machine = machine()
        ready(&machine)
        guard case .fail(.connectionLost(.unregistered(.appUnauthorized))) = machine.connectionEnded(.unregistered(.appUnauthorized)) else {
            Issue.record("APP_UNAUTHORIZED ends the run")
            return
        }
        machine.runEnded(SDLManagerError.connectionLost(.unregistered(.appUnauthorized)))
        #expect(machine.failure as? SDLManagerError == .connectionLost(.unregistered(.appUnauthorized)))
        #expect(machine.run() == .refuse(.alreadyStopped))
    }

    @Test func neverReconnectsWithTheNeverPolicy() {
        var machine = machine(.never)
        ready(&machine)
        guard case .fail(.connectionLost(.transportClosed)) = machine.connectionEnded(.transportClosed) else {
            Issue.record("one attempt only")
            return
        }
    }

    @Test func theAppClosingTheSessionFinishes() {
        var machine = machine()
        ready(&machine)
        guard case .finish = machine.connectionEnded(.closedByApp) else {
            Issue.record("finish")
            return
        }
    }

    @Test func theBackOffHasAFloor() {
        #expect(Machine.backOff(.standard, beforeAttempt: 1) == .milliseconds(500))
        #expect(Machine.backOff(SDLReconnectPolicy(maxAttempts: 9, initialDelay: .seconds(2)), beforeAttempt: 2) == .seconds(2))
    }
}
