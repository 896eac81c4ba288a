"""The phone page's "Scan with the camera" over HTTPS (`authphone serve --tls`), with Chromium's
fake camera playing a video the test writes of a console session's QR code: the scan starts the
enrolment; with the camera refused the page says so and leaves the paste box. A phone-sized
screenshot of the scanner open goes to artifacts/screenshots/camera-scan.png (docs/images has a copy).

The test starts its own server with --tls (AUTHPHONE_BINARY, as Tests/api/servers.py says).
"""

import pathlib
import re
import tempfile
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from pages import SCREENSHOTS, call, click, new_phone, visible, wait_for, wait_screen, wait_visible
from servers import own_server

# A 640×480 frame a second at 10 frames a second; the QR code slides in from the right over the
# first two seconds (out of reach of a decoder, so that the scanner can be seen open) and stays.
WIDTH, HEIGHT, FPS, SLIDE = 640, 480, 10, 20


@pytest.fixture(scope="module")
def server():
    with own_server("--tls", ready_status=307) as url:
        yield url.replace("http://", "https://")


def modules(svg):
    """The dark modules of the server's QR code picture (Backend's QRCode.svg: one `M x y h n v1 h-n z` a run)."""
    extent = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    dark = set()
    for x, y, run in re.findall(r"M(\d+) (\d+)h(\d+)", svg):
        dark.update((int(x) + i, int(y)) for i in range(int(run)))
    return extent, dark


def qr_video(svg, path):
    """A YUV4MPEG2 video (Chromium's fake camera reads .y4m) of the QR code on white paper."""
    extent, dark = modules(svg)
    size = min(WIDTH, HEIGHT) * 3 // 4 // extent
    top = (HEIGHT - extent * size) // 2
    centre = (WIDTH - extent * size) // 2
    chroma = bytes([128]) * (WIDTH * HEIGHT // 2)
    with open(path, "wb") as video:
        video.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for index in range(SLIDE + FPS):
            left = centre + max(0, SLIDE - index) * (WIDTH - centre) // SLIDE // 2 * 2
            luma = bytearray([235]) * (WIDTH * HEIGHT)
            for mx, my in dark:
                for row in range(top + my * size, top + (my + 1) * size):
                    start = left + mx * size
                    end = min(start + size, WIDTH)
                    if start < WIDTH:
                        luma[row * WIDTH + start:row * WIDTH + end] = bytes([16]) * (end - start)
            video.write(b"FRAME\n" + luma + chroma)


def chromium(camera, video=None):
    """Headless Chromium at a phone's size that trusts the test server's certificate; `camera`:
    whether the page's request for the camera is allowed."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              "--ignore-certificate-errors", "--use-fake-device-for-media-stream"]:
        opts.add_argument(a)
    if video:
        opts.add_argument(f"--use-file-for-fake-video-capture={video}")
    opts.add_experimental_option("prefs", {"profile.default_content_setting_values.media_stream_camera": 1 if camera else 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.set_window_size(390, 844)  # the command line's size stops at 500 px wide in headless mode
    return driver


def open_phone(driver, server, name):
    driver.get(server + "/")
    phone = new_phone(driver, name)
    driver.get(f"{server}/phones/{phone['id']}")
    wait_screen(driver, "HOME")
    return phone


def test_the_camera_scans_a_console_qr_code_and_starts_the_enrolment(server):
    with tempfile.TemporaryDirectory() as folder:
        driver = chromium(camera=False)
        try:
            driver.get(server + "/")
            session = call(driver, "POST", "/api/backend/sessions",
                           {"type": "enrol", "userId": "cam-" + uuid.uuid4().hex[:8], "displayName": "Cam Era"})
            svg = driver.execute_async_script(
                "fetch(arguments[0]).then(r => r.text()).then(arguments[1])", f"/api/backend/sessions/{session['id']}/qr.svg")
        finally:
            driver.quit()
        video = pathlib.Path(folder) / "qr.y4m"
        qr_video(svg, video)

        driver = chromium(camera=True, video=video)
        try:
            open_phone(driver, server, "Camera")
            click(driver, "#camera-scan")
            wait_for(driver, lambda d: d.execute_script(
                "const v = document.getElementById('camera-preview'); return v.videoWidth > 0 && !v.paused"), "the preview never played")
            if visible(driver, "#camera-panel"):
                driver.execute_script("document.getElementById('camera-scan').scrollIntoView({block: 'start'})")
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(SCREENSHOTS / "camera-scan.png"))
            wait_screen(driver, "WAIT_FOR_INPUT", "CONFIRM")
            assert not visible(driver, "#camera-panel"), "the camera did not stop once a code was read"
            assert driver.execute_script("return document.getElementById('camera-preview').srcObject") is None
            # the frames before the code slid in had none: no error for any of them in the browser's log
            refused = [entry["message"] for entry in driver.get_log("browser") if "oob/image" in entry["message"]]
            assert not refused, refused
        finally:
            driver.quit()


def test_a_refused_camera_is_said_and_the_paste_box_offered(server):
    driver = chromium(camera=False)
    try:
        open_phone(driver, server, "No camera")
        click(driver, "#camera-scan")
        error = wait_visible(driver, "#oob-error", "no message for the refused camera")
        assert "camera was refused" in error.text
        assert "Paste the QR text below instead" in error.text
        assert driver.switch_to.active_element.get_attribute("id") == "oob-text"
        assert not visible(driver, "#camera-panel")
    finally:
        driver.quit()
