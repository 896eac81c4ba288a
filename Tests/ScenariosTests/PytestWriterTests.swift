import Foundation
import Scenarios
import Testing

/// The pytest file a scenario becomes: a line a step, an assert an outcome, PINs as digits the
/// replay chooses, and Python that Python itself parses.
@Suite struct PytestWriterTests {
    static func scenario() -> Scenario {
        var walk = WalkRecorderTests.started()
        walk.record(.codeScanned(phone: "P-1", text: "QR-1", flow: FlowSeen(state: "WAIT_FOR_INPUT", interaction: "CONFIRM"), refusal: nil))
        walk.record(
            .acted(
                phone: "P-1", input: WalkRecorderTests.pin(), before: WalkRecorderTests.settingPin, flow: FlowSeen(state: "DONE", result: "SUCCESS"),
                refusal: nil))
        walk.record(
            .acted(
                phone: "P-1",
                input: ActInput(action: "confirmTransaction", account: nil, biometrics: nil, userInput: nil, typedPin: false, typedOldPin: false),
                before: nil, flow: nil, refusal: "UNEXPECTED_INPUT"))
        walk.record(.clockAdvanced(seconds: 60, refusal: nil))
        walk.record(.flowStarted(phone: "P-1", type: "CHANGE_PIN", flow: nil, refusal: nil))
        walk.record(.reset)
        walk.record(.sessionEnded(id: "S-1", outcome: "enrolled"))
        walk.rename("Enrol Alice, then 1 minute")
        return walk.scenario
    }

    @Test func eachStepIsALineAndEachOutcomeAnAssert() {
        let file = PytestWriter.file(Self.scenario())
        let expected = [
            "def test_enrol_alice_then_1_minute(authphone):",
            "    phone_1 = authphone.new_phone(\"Stage phone\")",
            "    session_1 = authphone.backend.start(\"enrol\", \"alice\")",
            "    assert seen(phone_1.scan(session_1).flow) == (\"WAIT_FOR_INPUT\", \"CONFIRM\", None, None)",
            "    assert seen(phone_1.enter_pin(\"135790\")) == (\"DONE\", None, \"SUCCESS\", None)  # a new PIN",
            "    with pytest.raises(AuthPhoneError) as refused:",
            "        phone_1.confirm_transaction()",
            "    assert refused.value.code == \"UNEXPECTED_INPUT\"",
            "    authphone.advance(60)",
            "    phone_1.start_flow(\"CHANGE_PIN\")",
            "    authphone.reset()",
            "    assert session_1.wait_outcome() == \"enrolled\"",
        ].joined(separator: "\n")
        #expect(file.contains(expected))
        #expect(file.contains("AuthPhone.start(args=[\"--clock\", \"manual\", \"--session-lifetime\", \"60\"])"))
    }

    @Test func pythonParsesIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pytest-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("test_walk.py")
        try Data(PytestWriter.file(Self.scenario()).utf8).write(to: file)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", file.path]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
    }

    @Test func namesBecomePythonNames() {
        #expect(PytestWriter.identifier("Blocked PIN → unblock!") == "blocked_pin_unblock")
        #expect(PytestWriter.identifier("…") == "recorded_walk")
    }
}
