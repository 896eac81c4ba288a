"""The phone page as an app on a home screen: it links a web app manifest whose icons the server
serves, and a push that arrives while the page is in view buzzes the phone (the banner announces
it as before).

The server is started by the caller (scripts/browser-test.sh); pages.py has the helpers.
"""

from pages import BASE_URL, call, new_phone, open_payload, wait_for, wait_screen, wait_visible
from test_pasted_push import push_json


FETCH_STATUS = "fetch(arguments[0], {credentials: 'include'}).then(r => arguments[1](r.status))"


def test_the_page_is_installable_and_a_push_in_view_buzzes(driver):
    driver.get(BASE_URL + "/")
    phone = new_phone(driver, "Installable")
    driver.get(f"{BASE_URL}/phones/{phone['id']}")
    wait_screen(driver, "HOME")

    manifest = driver.execute_async_script(
        "fetch(document.querySelector('link[rel=manifest]').href, {credentials: 'include'}).then(r => r.json()).then(arguments[0])")
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert driver.execute_async_script(FETCH_STATUS, icon["src"]) == 200, icon["src"]

    driver.execute_script("window.buzzes = []; navigator.vibrate = (pattern) => window.buzzes.push(pattern) || true;")
    session = call(driver, "POST", "/api/backend/sessions", {"type": "enrol", "userId": "buzz-" + phone["id"][:8], "displayName": "Buzz"})
    open_payload(driver, push_json(session["qrText"], "Buzz"))
    wait_visible(driver, "#push-banner", "the pasted push shows no notification")
    wait_for(driver, lambda d: d.execute_script("return window.buzzes.length") == 1, "the push did not buzz the phone")
