import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Store care view model")
struct StoreCareViewModelTests {
    @Test func aDiagnosisIsLoadingUntilTheCheckAnswers() async {
        let service = FakeStoreCare()
        let model = StoreCareViewModel(service: service)
        let gate = SuspensionGate<String>()
        await service.hold(at: gate)

        let check = Task { await model.diagnose() }
        await gate.arrival()
        #expect(model.state.isLoading)
        await gate.open(with: "healthy")
        await check.value

        #expect(model.state.value == "healthy")
    }

    @Test func aRefusedRestoreKeepsItsErrorAndABackupClearsIt() async {
        let model = StoreCareViewModel(service: FakeStoreCare())
        #expect(await model.restore(from: "/nowhere/backup.sqlite") == nil)
        #expect(model.failure as? FakeError == FakeError("no backup at /nowhere/backup.sqlite"))
        #expect(await model.backup(to: "/tmp/copy.sqlite") == "copied to /tmp/copy.sqlite")
        #expect(model.failure == nil && model.errorMessage == nil)
    }
}

/// A store whose check may wait at a gate; a restore from `/nowhere` is refused.
actor FakeStoreCare: StoreCaring {
    private var gate: SuspensionGate<String>?

    func hold(at gate: SuspensionGate<String>) {
        self.gate = gate
    }

    func diagnose() async throws -> String {
        guard let gate else { return "healthy" }
        return try await gate.pass()
    }

    func backup(to path: String) async throws -> String { "copied to \(path)" }

    func restore(from path: String) async throws -> String {
        guard !path.hasPrefix("/nowhere") else { throw FakeError("no backup at \(path)") }
        return "restored from \(path)"
    }
}
