"""Browser test of recording a walk on the stage (docs/recording.md): *Record* on the stage's bar,
then an enrolment, a push login, three wrong PINs and the block, the unblock, a transaction and a
session left to expire under the manual clock (*+1 min*), all through the stage's own controls
and the phone on stage; then *Stop*, and the walk downloaded through the stage's links as a JSON
scenario and a pytest file. The pytest file passes on a server of its own, `authphone replay`
walks the scenario again on a fresh server, and with a fault left on one it stops at the step
that answers otherwise, naming it. No PIN typed is in either file. And the same control on the
console and beside a phone: a walk started on one shows on the other, which stops it; renamed and
deleted.

The stage's test starts its servers itself (`--clock manual`, AUTHPHONE_BINARY as Tests/api/servers.py
says); pages.py has the helpers.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import uuid

import requests

from selenium.webdriver.common.by import By

from pages import (
    BASE_URL, DOWNLOADS, PIN, TIMEOUT, call, click, confirm_with_pin, find, go_home, new_phone, open_console, visible,
    wait_connected, wait_for, wait_visible,
)
from servers import BINARY, own_server
from test_stage import downloaded, new_phone_on_stage, on_phone, outcome, start
from test_stage_tools import WRONG_PIN, block_with_wrong_pins, login_on_phone

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
CONTROL = "#stage-recording"
# The session's lifetime on the recording's server (serve --session-lifetime): not whole minutes,
# so that no press of +1 min lands on the expiry itself, where whether it has passed depends on the
# fraction of a second the manual clock started at. The walk moves the clock past it, and so past
# the default 300 s that the pytest file's own server keeps.
SESSION_LIFETIME = 330
PRESSES = -(-SESSION_LIFETIME // 60)


def record(driver, name):
    """Starts recording on the stage's bar under `name`; waits until the bar says it records."""
    field = wait_visible(driver, f'{CONTROL} [data-recording="name"]', "no name field beside Record")
    field.clear()
    field.send_keys(name)
    click(driver, f'{CONTROL} [data-recording="record"]')
    wait_for(driver, lambda d: find(d, CONTROL).get_attribute("data-recording-state") == "recording", "the stage does not say it records")
    status = wait_visible(driver, f'{CONTROL} [data-recording="status"]', "no recording indicator")
    assert name in status.text and "Recording" in status.text, status.text
    assert not visible(driver, f'{CONTROL} [data-recording="record"]'), "Record is still offered while recording"


def steps_shown(driver):
    return int(find(driver, f'{CONTROL} [data-recording="status"]').get_attribute("data-steps") or 0)


def wait_note(driver, text):
    wait_for(driver, lambda d: text in find(d, "#stage-note").text, f"the stage's note never said {text!r}")


def walk(driver, user_id):
    """Everything the recording holds, done on the stage and the phone on stage."""
    phone_id = find(driver, ".stage-phone").get_attribute("data-phone-id")

    # enrol: the card hands the QR code to the phone on stage, which sets its PIN
    start(driver, "enrol", user_id, display_name="Rhea Recorded")
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, new_pin=True)
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Enrolled")
    # the indicator counts the steps as they are taken (its next look at the server)
    wait_for(driver, lambda d: steps_shown(d) >= 5, "the indicator does not count the steps")

    # a login pushed to the phone: its banner opens it
    start(driver, "login", user_id)
    click(driver, "#push-to-phone")
    wait_for(driver, lambda d: find(d, "#session-dispatch").get_attribute("data-dispatch") == "dispatched", "the push was not dispatched")
    on_phone(driver, phone_id)
    wait_visible(driver, "#push-banner", "the pushed login's banner is not shown")
    click(driver, "#push-banner")
    confirm_with_pin(driver)
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Logged in")

    # three wrong PINs: the third blocks it
    login_on_phone(driver, phone_id, user_id)
    block_with_wrong_pins(driver)
    click(driver, "#home")
    driver.switch_to.default_content()
    outcome(driver, "Failed")

    # the administrator's unblock, from the stage's bar
    click(driver, "#stage-unblock")
    wait_note(driver, f"The PIN of {user_id} is unblocked")

    # a transaction: its text confirmed, then the PIN
    start(driver, "transaction", user_id, transaction="Pay 42.00 EUR to the recording")
    click(driver, "#open-on-phone")
    on_phone(driver, phone_id)
    confirm_with_pin(driver, steps=("CONFIRM", "CONFIRM_TRANSACTION"))
    go_home(driver)
    driver.switch_to.default_content()
    outcome(driver, "Signed")

    # a login nobody answers, and the manual clock moved on a minute at a time past its lifetime
    start(driver, "login", user_id)
    for _ in range(PRESSES):
        click(driver, "#stage-clock")  # the note goes as the press starts, and says where the clock is once it is done
        wait_note(driver, "a minute on")
    return phone_id


def stop_and_download(driver, name):
    """Stops the recording on the stage's bar and downloads its two files through the list's links."""
    steps = steps_shown(driver)
    click(driver, f'{CONTROL} [data-recording="stop"]')
    wait_for(driver, lambda d: find(d, CONTROL).get_attribute("data-recording-state") == "idle", "the stage still says it records")
    wait_visible(driver, f'{CONTROL} [data-recording="record"]', "Record is not offered again after Stop")
    # the menu of recordings opens on the one just stopped
    row_css = "#stage-recording-list .recording-row"
    row = wait_visible(driver, row_css, "the stopped walk is not listed")
    assert find(driver, "#stage-recordings").get_property("open"), "the recordings' menu did not open"
    assert find(driver, f'{row_css} [data-recording="row-name"]').text == name
    facts = find(driver, f'{row_css} [data-recording="facts"]').text
    assert re.search(r"\d+ steps", facts) and int(facts.split()[0]) >= steps and "manual clock" in facts, facts
    recording_id = row.get_attribute("data-recording-id")

    files = {}
    # the scenario named by the page, the pytest file by the server (its test's name)
    test_name = "_".join(re.findall("[a-z0-9]+", name.lower()))
    for kind, file_name in (("json", f"{name}.json"), ("pytest", f"test_{test_name}.py")):
        (DOWNLOADS / file_name).unlink(missing_ok=True)
        click(driver, f'{row_css} [data-recording="{kind}"]')
        files[kind] = downloaded(file_name)
    assert files["json"].name == f"{name}.json", files["json"].name
    assert files["pytest"].name.startswith("test_") and files["pytest"].name.endswith(".py"), files["pytest"].name
    return recording_id, files


def check_scenario(path, user_id):
    text = path.read_text()
    scenario = json.loads(text)
    assert scenario["schema"] == "authphone-scenario/1" and scenario["clock"] == "manual", scenario
    steps = scenario["steps"]
    kinds = [s["do"] for s in steps]
    for kind in ("createPhone", "startSession", "scan", "pushSession", "openPush", "act", "unblockPin", "advanceClock", "sessionOutcome"):
        assert kind in kinds, (kind, kinds)
    outcomes = [s["outcome"] for s in steps if s["do"] == "sessionOutcome"]
    assert outcomes == ["enrolled", "loggedin", "failed", "signed", "expired"], outcomes
    pins = [s["pin"] for s in steps if s.get("pin")]
    assert pins == ["new", "enrolled", "wrong", "wrong", "wrong", "enrolled"], pins
    assert any(s.get("expect", {}).get("flow", {}).get("error") == "PIN_BLOCKED" for s in steps), "the block is not recorded"
    assert any(s["do"] == "unblockPin" and s["user"] == user_id for s in steps)
    # the expiry seen once the clock passed it
    assert kinds[-PRESSES - 2:] == ["startSession"] + ["advanceClock"] * PRESSES + ["sessionOutcome"], kinds


def test_a_walk_recorded_on_the_stage_replays(driver, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    user_id = f"rhea-{suffix}"
    name = f"Stage walk {suffix}"
    with own_server("--clock", "manual", "--session-lifetime", str(SESSION_LIFETIME)) as url:
        driver.get(url + "/stage")
        wait_connected(driver, "stage")
        wait_visible(driver, "#stage-clock", "a manual clock offers +1 min")
        new_phone_on_stage(driver)
        record(driver, name)
        walk(driver, user_id)
        recording_id, files = stop_and_download(driver, name)
        assert requests.get(f"{url}/api/recordings/{recording_id}", timeout=10).json()["name"] == name

    # no PIN typed is kept: only what each was to its flow
    for path in files.values():
        text = path.read_text()
        assert PIN not in text and WRONG_PIN not in text, f"{path.name} holds a PIN typed"
    check_scenario(files["json"], user_id)

    # the pytest file passes, on a server of its own, with the Python client of this tree
    test_file = tmp_path / files["pytest"].name
    shutil.copy(files["pytest"], test_file)
    environment = {**os.environ, "AUTHPHONE_BINARY": BINARY, "PYTHONPATH": str(REPOSITORY / "clients" / "python" / "src")}
    environment.pop("AUTHPHONE_URL", None)  # the client's pytest plugin would use the suite's server
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(test_file)],
                         cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=TIMEOUT * 6)
    assert ran.returncode == 0, f"the recorded pytest file failed:\n{ran.stdout}\n{ran.stderr}\n{test_file.read_text()}"

    # authphone replay walks it again on a fresh server with a manual clock
    with own_server("--clock", "manual") as fresh:
        replayed = subprocess.run([BINARY, "replay", str(files["json"]), "--url", fresh], capture_output=True, text=True, timeout=TIMEOUT * 6)
        assert replayed.returncode == 0, f"the replay failed:\n{replayed.stdout}\n{replayed.stderr}"
        assert "answered as recorded" in replayed.stdout, replayed.stdout

    # and a fault left on the server: the replay stops at the step that answers otherwise
    with own_server("--clock", "manual") as faulty:
        fault = requests.post(faulty + "/api/faults", json={"target": "backend", "kind": "status", "status": 503}, timeout=10)
        assert fault.status_code == 201, fault.text
        replayed = subprocess.run([BINARY, "replay", str(files["json"]), "--url", faulty], capture_output=True, text=True, timeout=TIMEOUT * 6)
        assert replayed.returncode == 1, f"the replay did not fail:\n{replayed.stdout}\n{replayed.stderr}"
        assert re.search(r"step \d+ \(.+\) differs", replayed.stderr), replayed.stderr


def test_a_walk_started_on_the_console_is_stopped_beside_the_phone(driver, windows):
    suffix = uuid.uuid4().hex[:8]
    name, renamed = f"Console walk {suffix}", f"Renamed walk {suffix}"
    console, beside_phone = "#console-recording", "#phone-recording"
    open_console(driver, windows)
    phone = new_phone(driver, f"Recording phone {suffix}")
    try:
        find(driver, f'{console} [data-recording="name"]').send_keys(name)
        click(driver, f'{console} [data-recording="record"]')
        wait_for(driver, lambda d: find(d, console).get_attribute("data-recording-state") == "recording", "the console does not say it records")

        # the phone page, opened since, shows the walk under way, and stops it
        driver.switch_to.new_window("tab")
        windows["phone"] = driver.current_window_handle
        driver.get(f"{BASE_URL}/phones/{phone['id']}")
        wait_connected(driver, "phone")
        status = wait_visible(driver, f'{beside_phone} [data-recording="status"]', "the phone page does not show the walk recorded")
        assert name in status.text, status.text
        click(driver, f'{beside_phone} [data-recording="stop"]')
        row = f'#phone-recording-list .recording-row[data-state="stopped"] [data-recording="row-name"]'
        wait_for(driver, lambda d: (shown := visible(d, row)) and shown.text == name, "the stopped walk is not listed beside the phone")

        # the console sees it stopped at its next look, without a reload; renames it, then deletes it
        driver.switch_to.window(windows["console"])
        wait_for(driver, lambda d: find(d, console).get_attribute("data-recording-state") == "idle", "the console still says it records")
        row = f'{console} .recording-row:first-child'
        wait_for(driver, lambda d: find(d, f'{row} [data-recording="row-name"]').text == name, "the console does not list the walk")
        click(driver, f'{row} [data-recording="rename"]')
        field = wait_visible(driver, f'{row} [data-recording="new-name"]', "no field for the new name")
        field.clear()
        # a refusal is said with its code
        click(driver, f'{row} [data-recording="save-name"]')
        error = wait_visible(driver, f'{console} [data-recording="error"]', "an empty name is not refused")
        assert error.get_attribute("data-code") == "INVALID_FIELD", error.text
        field = find(driver, f'{row} [data-recording="new-name"]')
        field.clear()
        field.send_keys(renamed)
        click(driver, f'{row} [data-recording="save-name"]')
        wait_for(driver, lambda d: find(d, f'{row} [data-recording="row-name"]').text == renamed, "the walk was not renamed")
        recording_id = find(driver, row).get_attribute("data-recording-id")
        click(driver, f'{row} [data-recording="delete"]')
        assert find(driver, f'{row} [data-recording="delete"]').text == "Delete for good", "Delete did not ask for a second click"
        click(driver, f'{row} [data-recording="delete"]')
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f'{console} [data-recording-id="{recording_id}"]'), "the walk was not deleted")
        assert not visible(driver, f'{console} [data-recording="error"]'), "the refusal outlived the next change"
        assert call(driver, "GET", f"/api/recordings/{recording_id}")["error"]["code"] == "RECORDING_NOT_FOUND"
    finally:
        # the suite's server records nothing more for the tests after this one
        for left in call(driver, "GET", "/api/recordings")["recordings"]:
            if suffix in left["name"]:
                call(driver, "DELETE", f"/api/recordings/{left['id']}")
