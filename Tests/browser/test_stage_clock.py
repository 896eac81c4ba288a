"""The stage's *+1 min* (docs/recording.md): hidden on a server that keeps the wall clock's time;
on one started with `--clock manual` (a server of the test's own, AUTHPHONE_BINARY as
Tests/api/servers.py says) it moves the server's time a minute on and says where it is.
"""

from datetime import datetime

import requests

from pages import BASE_URL, click, find, visible, wait_connected, wait_for, wait_visible
from servers import own_server


def server_time(url):
    return datetime.fromisoformat(requests.get(url + "/api/clock", timeout=10).json()["now"].replace("Z", "+00:00"))


def test_the_stage_moves_a_manual_clock_a_minute_on(driver):
    driver.get(BASE_URL + "/stage")
    wait_connected(driver, "stage")
    wait_for(driver, lambda d: find(d, "#stage-clock").get_attribute("data-mode") == "system", "the stage never read the clock")
    assert not visible(driver, "#stage-clock"), "the wall clock offers no +1 min"

    with own_server("--clock", "manual") as url:
        driver.get(url + "/stage")
        wait_connected(driver, "stage")
        wait_visible(driver, "#stage-clock", "a manual clock offers +1 min")
        before = server_time(url)
        click(driver, "#stage-clock")
        wait_for(driver, lambda d: "a minute on" in find(d, "#stage-note").text, "the stage does not say where the clock is")
        assert (server_time(url) - before).total_seconds() == 60
