"""`authphone phone …` and `authphone push --phone` walk an enrolment and a login by push against
the running server, the phone's side driven by the command line alone (the relying party's
sessions come from its API); exit codes tell success from refusal.

Environment: AUTHPHONE_URL (the running server) and AUTHPHONE_BINARY (scripts/api-test.sh sets both).
"""

import json
import subprocess
import urllib.parse

import requests

from client import BASE_URL, PIN, TIMEOUT, WRONG_PIN, push_data, uniq
from servers import BINARY


def cli(*args, stdin=None):
    """The command's exit code, standard output and standard error."""
    done = subprocess.run([BINARY, *args, "--server", BASE_URL], capture_output=True, timeout=TIMEOUT, input=stdin)
    return done.returncode, done.stdout.decode().strip(), done.stderr.decode().strip()


def ok(*args):
    code, out, err = cli(*args)
    assert code == 0, f"{args}: {err}"
    return out


def session(kind, user):
    return requests.post(f"{BASE_URL}/api/backend/sessions", json={"type": kind, "userId": user}, timeout=TIMEOUT).json()


def test_the_command_line_enrols_and_logs_in(tmp_path):
    name, user = uniq("CLI phone"), uniq("cli")
    created = json.loads(ok("phone", "create", name, "--json"))
    phone_id = created["id"]
    assert f"{phone_id}\t{created['number']}\t{name}" in ok("phone", "list").splitlines()

    enrol = session("enrol", user)
    assert ok("phone", "open", name, "--qr", enrol["qrText"]) == "WAIT_FOR_INPUT CONFIRM"
    assert ok("phone", "confirm", name).startswith("WAIT_FOR_INPUT")
    assert ok("phone", "pin", phone_id, PIN) == "DONE"
    done = json.loads(ok("phone", "wait", name, "--state", "DONE", "--json"))
    assert (done["type"], done["state"]) == ("ENROL", "DONE")

    # a login pushed to the phone by its name, opened from the same file
    login = session("login", user)
    push = tmp_path / "push.json"
    push.write_text(json.dumps({"data": push_data(login["qrText"])}))
    assert json.loads(ok("push", "--phone", name, "--file", str(push)))["name"].startswith("projects/authphone/messages/")
    assert ok("phone", "open", name, "--file", str(push)) == "WAIT_FOR_INPUT CONFIRM"
    assert ok("phone", "confirm", name) == "WAIT_FOR_INPUT VERIFY_SECOND_FACTOR"
    wrong = json.loads(ok("phone", "pin", name, WRONG_PIN, "--json"))
    assert wrong["previousInteractionResult"]["type"] == "PIN_FAIL"
    assert ok("phone", "pin", name, PIN) == "DONE"
    answer = requests.get(f"{BASE_URL}/api/backend/sessions/{login['id']}", timeout=TIMEOUT).json()
    assert answer["status"] == "loggedin"
    inbox = requests.get(f"{BASE_URL}/api/phones/{phone_id}/inbox", timeout=TIMEOUT).json()["messages"]
    assert len(inbox) == 1  # the push arrived, and was opened from the file instead


def test_refusals_exit_non_zero_with_the_servers_code():
    code, _, err = cli("phone", "open", "no such phone", "--qr", "x")
    assert code == 1 and err.startswith("PHONE_NOT_FOUND")
    name = uniq("CLI idle")
    ok("phone", "create", name)
    code, _, err = cli("phone", "open", name, "--qr", "not a payload")
    assert code == 1 and err.split(":")[0].isupper(), err
    code, _, err = cli("phone", "pin", name, PIN)
    assert code == 1, err
    code, _, err = cli("phone", "open", name)  # no input at all: a usage error
    assert code == 64 and "exactly one of --qr, --link and --file" in err
    code, _, err = cli("push", "--phone", "no such phone", stdin=b'{"data": {"k": "v"}}')
    assert code == 1 and err.startswith("PHONE_NOT_FOUND")


def test_the_command_line_sets_auto_answer_rules():
    """`authphone phone auto-answer`: a rule that enrols a fresh phone by itself, its list, a refused
    PIN, and --clear."""
    name, user = uniq("CLI rules"), uniq("cli-rules")
    ok("phone", "create", name)
    host = urllib.parse.urlsplit(BASE_URL).hostname  # the demo backend's, as its sessions name it
    rule = ok("phone", "auto-answer", name, "--answer", "confirm", "--pin", PIN, "--user", user, "--from", host)
    listed = ok("phone", "auto-answer", name, "--list").splitlines()
    assert listed == [f"{rule} confirm server={host} user={user} secondFactor=PIN"], listed
    assert ok("phone", "open", name, "--qr", session("enrol", user)["qrText"]) == "DONE"
    code, _, err = cli("phone", "auto-answer", name, "--answer", "confirm", "--pin", WRONG_PIN)
    assert code == 1 and err.startswith("RULE_PIN_WRONG"), err
    code, _, err = cli("phone", "auto-answer", name, "--list", "--user", user)
    assert code == 64 and "a rule's options go with --answer" in err
    assert ok("phone", "auto-answer", name, "--clear") == "cleared"
    assert ok("phone", "auto-answer", name, "--list") == ""


def test_the_command_line_lists_a_phones_texts_and_reads_its_code():
    """`authphone phone create --number` and `authphone phone messages`: a text sent through the SMS
    gateway is listed, and `--code` prints its one-time code alone."""
    name = uniq("CLI texts")
    number = "+1555" + str(abs(hash(name)) % 10_000_000).zfill(7)
    assert json.loads(ok("phone", "create", name, "--number", number, "--json"))["number"] == number
    code, _, err = cli("phone", "messages", name, "--code")
    assert code == 1 and err.startswith("NO_CODE"), err
    account = requests.get(f"{BASE_URL}/api/sms/account", timeout=TIMEOUT).json()
    sent = requests.post(account["gatewayURL"], data={"to": number, "text": "Your code is 271828", "from": "Bank"},
                         auth=(account["accountSid"], account["authToken"]), timeout=TIMEOUT)
    assert sent.status_code == 200, sent.text
    line = ok("phone", "messages", name)
    assert line.split("\t")[1:] == ["Bank", "271828", "Your code is 271828"], line
    assert ok("phone", "messages", name, "--code") == "271828"
