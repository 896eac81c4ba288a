import WireJSON

/// A scenario as a pytest file a person can read, edit and keep: one test, a line a step, an
/// `assert` an outcome, through the `authphone` Python client (docs/python-client.md). It starts
/// a server of its own, with the manual clock where the walk moved time, so that the names the
/// walk gave (`phone 1`, `alice`) mean on it what they meant when it was recorded.
public enum PytestWriter {
    public static func file(_ scenario: Scenario) -> String {
        var pins = PinBook()
        let serverArgs = scenario.serve.isEmpty ? "" : "args=[" + scenario.serve.map(python).joined(separator: ", ") + "]"
        var lines = [
            "\"\"\"\(scenario.name): a walk recorded by AuthPhone (\(Scenario.currentSchema), docs/recording.md).\"\"\"",
            "",
            "import pytest",
            "",
            "from authphone import AuthPhone, AuthPhoneError",
            "",
            "",
            "@pytest.fixture(scope=\"module\")",
            "def authphone():",
            "    \"\"\"A fresh server of the test's own, started as the walk's was.\"\"\"",
            "    with AuthPhone.start(\(serverArgs)) as client:",
            "        yield client",
            "",
            "",
            "def seen(flow):",
            "    \"\"\"A flow as the recording saw it: state, what it waits for, how the last input went, its error.\"\"\"",
            "    if flow is None:",
            "        return None",
            "    result = (flow.data.get(\"previousInteractionResult\") or {}).get(\"type\")",
            "    return (flow.state, flow.interaction, result, flow.error)",
            "",
            "",
            "def account_named(phone, name):",
            "    \"\"\"The id of the account called `name` among those the phone's screen offers.\"\"\"",
            "    offered = phone.flow().data[\"currentInteraction\"][\"confirmSessionInfo\"][\"accounts\"]",
            "    return next(account[\"id\"] for account in offered if account[\"displayName\"] == name)",
            "",
            "",
            "def test_\(identifier(scenario.name))(authphone):",
        ]
        for step in scenario.steps {
            lines += statement(step, pins: &pins).map { "    " + $0 }
        }
        if scenario.steps.isEmpty { lines.append("    pass  # the recording holds no step") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The lines of one step: the call, and the assert of what it answered.
    static func statement(_ step: ScenarioStep, pins: inout PinBook) -> [String] {
        let phone = step.phone.map(variable) ?? ""
        let call: String
        switch step.do {
        case .createPhone:
            return ["\(phone) = authphone.new_phone(\(python(step.name ?? "")))"]
        case .startSession:
            var fields = step.fields ?? [:]
            let type = fields.removeValue(forKey: "type").flatMap(\.text) ?? "login"
            let user = fields.removeValue(forKey: "userId").flatMap(\.text) ?? ""
            var arguments = [python(type), python(user)] + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(python($0.value))" }
            if let pushTo = step.pushTo { arguments.append("push_to=\(variable(pushTo))") }
            call = "authphone.backend.start(\(arguments.joined(separator: ", ")))"
            return refused(step, call) ?? ["\(variable(step.session ?? "session")) = \(call)"]
        case .pushSession:
            call = "\(variable(step.session ?? "")).push_to(\(phone))"
        case .scan:
            let code = step.session.map { step.via == "link" ? "\(variable($0)).deep_link" : variable($0) } ?? python(step.code ?? "")
            call = "\(phone).scan(\(code)).flow"
        case .openPush:
            call = "\(phone).open_push().flow"
        case .act:
            call = "\(phone).\(action(step, pins: &pins))"
            let note = pinNote(step)
            return statement(step, call).map { $0.contains(call) ? $0 + note : $0 }
        case .startFlow:
            call = "\(phone).start_flow(\(python(step.type ?? "")))"
        case .enrolBiometric:
            call = "\(phone).enrol_biometric()"
        case .sendPush:
            let to = step.pushTo.map { ", to=\(variable($0))" } ?? ""
            call = "authphone.push.send(\(python(.object(step.message ?? [:])))\(to))"
        case .unblockPin:
            call = "authphone.backend.unblock_pin(\(python(step.user ?? "")))"
        case .addFault:
            let spec = step.spec ?? [:]
            var fields = spec.sorted { $0.key < $1.key }.map { "\(python($0.key)): \(python($0.value))" }
            if case .string(let phoneName)? = spec["phoneId"] {
                fields = fields.map { $0.hasPrefix("\"phoneId\"") ? "\"phoneId\": \(variable(phoneName)).id" : $0 }
            }
            call = "authphone.add_fault({\(fields.joined(separator: ", "))})"
            return refused(step, call) ?? ["\(variable(step.fault ?? "fault")) = \(call)"]
        case .removeFault:
            call = "authphone.remove_fault(\(variable(step.fault ?? "")))"
        case .clearFaults:
            call = "authphone.clear_faults()"
        case .reset:
            call = "authphone.reset()"
        case .advanceClock:
            call = "authphone.advance(\(number(step.seconds ?? 0)))"
        case .sessionOutcome:
            return ["assert \(variable(step.session ?? "")).wait_outcome() == \(python(step.outcome ?? ""))"]
        }
        return statement(step, call)
    }

    /// `call`, asserting what it answered.
    private static func statement(_ step: ScenarioStep, _ call: String) -> [String] {
        if let lines = refused(step, call) { return lines }
        if let flow = step.expect?.flow { return ["assert seen(\(call)) == \(python(flow))"] }
        return [call]
    }

    /// A refused step: the call inside `pytest.raises`, and the code it must be refused with.
    private static func refused(_ step: ScenarioStep, _ call: String) -> [String]? {
        guard let code = step.expect?.error else { return nil }
        return ["with pytest.raises(AuthPhoneError) as refused:", "    \(call)", "assert refused.value.code == \(python(code))"]
    }

    private static func action(_ step: ScenarioStep, pins: inout PinBook) -> String {
        let account = step.account.map { "account=account_named(\(variable(step.phone ?? "")), \(python($0)))" }
        let userInput = step.userInput.map { "user_input=\(python($0))" }
        let (old, pin) = pins.digits(of: step)
        switch (step.action, pin, step.biometrics) {
        case ("confirmSession", _, _): return "confirm(\([account, userInput].compactMap { $0 }.joined(separator: ", ")))"
        case ("confirmTransaction", _, _): return "confirm_transaction()"
        case ("cancel", _, _): return "cancel()"
        case (_, let pin?, nil) where userInput == nil:
            let oldPin = old.map { ", old_pin=\(python($0))" } ?? ""
            return "enter_pin(\(python(pin))\(oldPin))"
        case (_, nil, let biometrics?) where userInput == nil: return "biometric(\(biometrics == "match" ? "True" : "False"))"
        default:
            var action: [String: OpenJSON] = ["action": .string(step.action ?? "")]
            action["pin"] = pin.map(OpenJSON.string)
            action["oldPin"] = old.map(OpenJSON.string)
            action["biometrics"] = step.biometrics.map(OpenJSON.string)
            action["userInput"] = step.userInput.map(OpenJSON.string)
            return "act(\(python(.object(action))))"
        }
    }

    /// What the PINs of a step stand for, as a comment for the reader, or nothing.
    private static func pinNote(_ step: ScenarioStep) -> String {
        let words: [PinRole: String] = [.enrolled: "the phone's PIN", .wrong: "a wrong PIN", .new: "a new PIN"]
        let said = [step.oldPin.map { "old: " + words[$0]! }, step.pin.map { words[$0]! }].compactMap { $0 }
        return said.isEmpty ? "" : "  # " + said.joined(separator: ", ")
    }

    /// `phone 1` → `phone_1`: a name a recording gave, as a Python variable.
    static func variable(_ name: String) -> String {
        let cleaned = String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return cleaned.first?.isNumber == false ? cleaned : "_" + cleaned
    }

    /// A test function's name from the recording's name: lower case, `_` between words.
    public static func identifier(_ name: String) -> String {
        let words = name.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.isEmpty ? "recorded_walk" : words.joined(separator: "_")
    }

    private static func python(_ flow: FlowSeen) -> String {
        "(" + [flow.state, flow.interaction, flow.result, flow.error].map { $0.map(python) ?? "None" }.joined(separator: ", ") + ")"
    }

    /// A string as a Python literal: JSON's escapes are Python's.
    static func python(_ text: String) -> String { WireJSON.quoted(text) }

    static func python(_ value: OpenJSON) -> String {
        switch value {
        case .null: "None"
        case .bool(let flag): flag ? "True" : "False"
        case .number(let value): number(value)
        case .string(let text): python(text)
        case .array(let items): "[" + items.map(python).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\(python($0.key)): \(python($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    private static func number(_ value: Double) -> String { Int64(exactly: value).map(String.init) ?? "\(value)" }
}

extension OpenJSON {
    /// The text of a string value.
    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
