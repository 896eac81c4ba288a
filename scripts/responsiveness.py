#!/usr/bin/env python3
"""Issue 29's responsiveness measurement: how long `/health` and a WebSocket round trip take
while heavy requests are in flight, against how long they take on an idle server.

It starts `authphone serve` itself (AUTHPHONE_BINARY, else .build/release/authphone if built,
else .build/debug/authphone) on a free port with a throw-away --data-dir and the default PIN key
derivation (interactive Argon2id), and stops it afterwards. It prepares

- PICTURES phones (32), each with a large PNG of a fresh enrolment session's QR code for
  `POST /api/phones/{id}/oob/image`, scaled up to MEGAPIXELS (24 by default: about a second of
  libzbar's time each), and
- PINS phones (48), each enrolled with a PIN and then in a login flow waiting for it, so that the
  PIN sent on the phone's screen (`/api/phones/{id}/stream`) makes the server run Argon2id,

then samples, every ~20 ms, `GET /health` and a round trip on an idle phone's screen (a
`confirmSession` without a flow, answered at once with the error NO_ACTIVE_FLOW): first for
IDLE seconds with nothing else going on, then while every upload and every PIN is sent at once,
until the last of them is answered. It prints p50/p99/max of both, idle and loaded, the burst's
duration, the uploads' answers by status and code (with Retry-After when given) and the PINs'
answer times; `--json FILE` writes the same figures.

Run it with scripts/responsiveness.sh, which makes the venv (Tests/api/requirements.txt).
"""

import argparse
import functools
import json
import os
import pathlib
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import requests
import websocket

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIN = "260418"
SAMPLE_INTERVAL = 0.02  # seconds between the starts of two samples of one probe
MAXIMUM_UPLOAD = 8 * 1024 * 1024  # the server's limit for a picture (Public/openapi.yaml)


class Failure(Exception):
    """The measurement could not be made; the message says why."""


def default_binary():
    if os.environ.get("AUTHPHONE_BINARY"):
        return pathlib.Path(os.environ["AUTHPHONE_BINARY"])
    release = ROOT / ".build/release/authphone"
    return release if release.exists() else ROOT / ".build/debug/authphone"


class Server:
    """`authphone serve` on a free port with a throw-away data folder, until the block ends."""

    def __init__(self, binary, timeout):
        self.binary, self.timeout = binary, timeout

    def __enter__(self):
        if not os.access(self.binary, os.X_OK):
            raise Failure(f"no server to start at {self.binary}: build it, or set AUTHPHONE_BINARY")
        self.folder = tempfile.TemporaryDirectory(prefix="responsiveness-")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = pathlib.Path(self.folder.name) / "server.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(self.binary), "serve", "--port", str(port), "--data-dir", f"{self.folder.name}/data"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            self.wait_for_health()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def wait_for_health(self):
        deadline = time.monotonic() + self.timeout
        while True:
            if self.process.poll() is not None:
                raise Failure("the server stopped at start")
            try:
                if requests.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise Failure("the server never answered /health")
            time.sleep(0.1)

    def __exit__(self, failure, *_):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        if failure:
            tail = self.log_path.read_text(errors="replace").splitlines()[-40:]
            print("--- the server's log, its end ---", *tail, sep="\n", file=sys.stderr)
        self.folder.cleanup()


class Api:
    """The few API calls the preparation makes, each bounded by the time-out."""

    def __init__(self, url, timeout):
        self.url, self.timeout = url, timeout
        self.http = requests.Session()

    def call(self, method, path, body=None, expect=200):
        response = self.http.request(method, self.url + path, json=body, timeout=self.timeout)
        if response.status_code != expect:
            raise Failure(f"{method} {path} answered {response.status_code}, not {expect}: {response.text[:300]}")
        return response

    def session(self, kind, user):
        return self.call("POST", "/api/backend/sessions", {"type": kind, "userId": user}, expect=201).json()

    def phone(self, name):
        return self.call("POST", "/api/phones", {"name": name}, expect=201).json()["id"]


class Screen:
    """A phone's screen WebSocket, open once it has shown the phone."""

    def __init__(self, api, phone):
        self.api, self.phone = api, phone
        self.ws = websocket.create_connection(f"{api.url.replace('http', 'ws', 1)}/api/phones/{phone}/stream",
                                              timeout=api.timeout)
        self.until(lambda m: m["type"] == "phone", "the phone")

    def send(self, message):
        self.ws.send(json.dumps(message))

    def until(self, predicate, what):
        deadline = time.monotonic() + self.api.timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if predicate(message):
                return message
            if message["type"] == "error":
                raise Failure(f"phone {self.phone} refused an input while waiting for {what}: {message}")
        raise Failure(f"phone {self.phone}'s screen never showed {what}")

    def waiting_for(self, interaction):
        return self.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] == "WAIT_FOR_INPUT"
                          and m["flow"].get("currentInteraction", {}).get("type") == interaction, interaction)

    def scan_and_confirm(self, session, next_interaction):
        self.api.call("POST", f"/api/phones/{self.phone}/oob", {"qr": session["qrText"]}, expect=202)
        self.waiting_for("CONFIRM")
        self.send({"action": "confirmSession"})
        self.waiting_for(next_interaction)


def phone_waiting_for_pin(api, number):
    """A phone enrolled with PIN whose login waits for it, and its open screen."""
    user = f"pin-user-{number}"
    screen = Screen(api, api.phone(f"PIN phone {number}"))
    screen.scan_and_confirm(api.session("enrol", user), "SET_SECOND_FACTOR")
    screen.send({"action": "inputSecondFactor", "pin": PIN})
    screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] == "DONE", "the enrolment's end")
    screen.scan_and_confirm(api.session("login", user), "VERIFY_SECOND_FACTOR")
    return screen


def qr_picture(svg, megapixels):
    """A grey PNG of one of the backend's QR codes (one `Mx yhwv1h-wz` path a run of dark modules)
    with a 4-module white margin, scaled up to about `megapixels`, and its side in pixels."""
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1)) + 8
    dark = [[False] * size for _ in range(size)]
    for x, y, width in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", svg):
        for i in range(int(width)):
            dark[int(y) + 4][int(x) + 4 + i] = True
    scale = max(1, int((megapixels * 1e6) ** 0.5) // size)
    rows = b"".join((b"\x00" + b"".join((b"\x00" if d else b"\xff") * scale for d in row)) * scale for row in dark)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    side = size * scale
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    if len(png) > MAXIMUM_UPLOAD:
        raise Failure(f"a {side}×{side} picture is {len(png)} bytes, over the server's 8 MiB: lower --megapixels")
    return png, side


def picture_phone(api, number, megapixels):
    """A phone and a picture of a fresh enrolment session's QR code to upload to it."""
    phone = api.phone(f"Camera phone {number}")
    session = api.session("enrol", f"picture-user-{number}")
    svg = api.call("GET", f"/api/backend/sessions/{session['id']}/qr.svg").text
    png, side = qr_picture(svg, megapixels)
    return phone, png, side


class Probe(threading.Thread):
    """Times one kind of request every SAMPLE_INTERVAL until stopped; `take()` hands over the
    latencies (ms) since the last take, and failures (a time-out, an error) are counted apart."""

    def __init__(self, name, measure):
        super().__init__(name=name, daemon=True)
        self.measure, self.stopped = measure, threading.Event()
        self.lock, self.samples, self.failures = threading.Lock(), [], []

    def run(self):
        while not self.stopped.is_set():
            start = time.monotonic()
            try:
                self.measure()
                outcome = None
            except Exception as error:  # a failed sample is a figure, not the end of the run
                outcome = f"{type(error).__name__}: {error}"
            elapsed = time.monotonic() - start
            with self.lock:
                (self.failures.append(outcome) if outcome else self.samples.append(elapsed * 1000))
            self.stopped.wait(max(0.0, SAMPLE_INTERVAL - elapsed))

    def take(self):
        with self.lock:
            taken = (self.samples, self.failures)
            self.samples, self.failures = [], []
        return taken


def health_probe(api):
    http = requests.Session()

    def measure():
        response = http.get(api.url + "/health", timeout=api.timeout)
        if response.status_code != 200:
            raise Failure(f"/health answered {response.status_code}")
    return Probe("health", measure)


def round_trip_probe(api):
    screen = Screen(api, api.phone("Idle phone"))

    def measure():
        screen.send({"action": "confirmSession"})
        screen.until(lambda m: m["type"] == "error" and m["error"]["code"] == "NO_ACTIVE_FLOW",
                     "the refusal NO_ACTIVE_FLOW")
    return Probe("ws-round-trip", measure)


def upload(api, phone, png):
    """One picture upload: its outcome (status, code, Retry-After) and answer time (ms)."""
    start = time.monotonic()
    try:
        response = requests.post(f"{api.url}/api/phones/{phone}/oob/image", data=png,
                                 headers={"Content-Type": "image/png"}, timeout=api.timeout)
    except requests.RequestException as error:
        return {"outcome": type(error).__name__, "ms": (time.monotonic() - start) * 1000}
    elapsed = (time.monotonic() - start) * 1000
    code = response.json().get("error", {}).get("code") if response.status_code >= 400 else None
    retry = response.headers.get("Retry-After")
    outcome = " ".join([str(response.status_code), *([code] if code else []),
                        *([f"Retry-After {retry}"] if retry else [])])
    return {"outcome": outcome, "ms": elapsed}


def pin_input(screen):
    """The PIN on a login waiting for it: how the flow ended and the answer time (ms)."""
    start = time.monotonic()
    try:
        screen.send({"action": "inputSecondFactor", "pin": PIN})
        message = screen.until(lambda m: m["type"] == "flowUpdate" and m["flow"]["state"] in ("DONE", "ERROR"),
                               "the login's end")
        flow = message["flow"]
        outcome = flow["state"] if flow["state"] == "DONE" else f"ERROR {flow.get('error', {}).get('code')}"
    except (Failure, websocket.WebSocketException, OSError) as error:
        outcome = f"{type(error).__name__}: {error}"
    return {"outcome": outcome, "ms": (time.monotonic() - start) * 1000}


def burst(jobs, timeout):
    """Every job at once (each in its own thread); their results, in order, and the burst's
    duration (s), until the last answer or twice the time-out."""
    results = [None] * len(jobs)
    gate = threading.Barrier(len(jobs) + 1)

    def run(index):
        gate.wait()
        results[index] = jobs[index]()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    gate.wait()
    start = time.monotonic()
    for thread in threads:
        thread.join(max(0.0, start + timeout * 2 - time.monotonic()))
    duration = time.monotonic() - start
    missing = {"outcome": "no answer within the time-out", "ms": None}
    return [r or missing for r in results], duration


def percentiles(samples):
    """p50, p99 and max (ms, nearest rank) and the count."""
    ordered = sorted(s for s in samples if s is not None)
    if not ordered:
        return {"count": 0, "p50": None, "p99": None, "max": None}

    def rank(p):
        return round(ordered[max(0, -(-len(ordered) * p // 100) - 1)], 1)
    return {"count": len(ordered), "p50": rank(50), "p99": rank(99), "max": round(ordered[-1], 1)}


def outcomes(results):
    """Count and answer times (ms) by outcome."""
    grouped = {}
    for result in results:
        grouped.setdefault(result["outcome"], []).append(result["ms"])
    return {name: percentiles(times) for name, times in sorted(grouped.items())}


def measure(args):
    binary = default_binary()
    with Server(binary, args.timeout) as server:
        api = Api(server.url, args.timeout)
        print(f"{binary} serving at {server.url}; preparing {args.pictures} pictures and {args.pins} PIN phones…",
              file=sys.stderr)
        with ThreadPoolExecutor(4) as pool:
            pictured = list(pool.map(lambda n: picture_phone(api, n, args.megapixels), range(args.pictures)))
            screens = list(pool.map(lambda n: phone_waiting_for_pin(api, n), range(args.pins)))
        probes = [health_probe(api), round_trip_probe(api)]
        for probe in probes:
            probe.start()
        time.sleep(args.idle)  # the idle window: the probes sample meanwhile
        idle = [probe.take() for probe in probes]
        print("idle figures taken; the burst…", file=sys.stderr)
        jobs = ([functools.partial(upload, api, phone, png) for phone, png, _ in pictured]
                + [functools.partial(pin_input, screen) for screen in screens])
        results, duration = burst(jobs, args.timeout)
        uploads, pins = results[:len(pictured)], results[len(pictured):]
        for probe in probes:  # a sample begun during the burst still counts
            probe.stopped.set()
            probe.join(args.timeout)
        loaded = [probe.take() for probe in probes]
        for screen in screens:
            screen.ws.close()
        return {
            "binary": str(binary),
            "date": time.strftime("%Y-%m-%d %H:%M"),
            "cores": os.cpu_count(),
            "load": {"pictures": args.pictures, "pictureSide": pictured[0][2] if pictured else None,
                     "pictureBytesMax": max((len(png) for _, png, _ in pictured), default=0), "pins": args.pins},
            **{phase: {name: {**percentiles(samples), "failures": failures}
                       for name, (samples, failures) in zip(("health", "wsRoundTrip"), taken)}
               for phase, taken in (("idle", idle), ("loaded", loaded))},
            "burstSeconds": round(duration, 2),
            "uploads": outcomes(uploads),
            "pins": outcomes(pins),
        }


def print_report(figures):
    def ms(value):
        return "-" if value is None else f"{value:,.1f}"

    load = figures["load"]
    size = f" of {load['pictureSide']}×{load['pictureSide']} px (up to {load['pictureBytesMax']:,} bytes)"
    print(f"{figures['binary']}, {figures['date']}, {figures['cores']} cores; {load['pictures']} pictures"
          f"{size if load['pictures'] else ''} and {load['pins']} PINs at once")
    print(f"\n{'ms':<22}{'samples':>8}{'p50':>10}{'p99':>10}{'max':>10}{'failed':>8}")
    for phase in ("idle", "loaded"):
        for name, label in (("health", "/health"), ("wsRoundTrip", "WS round trip")):
            row = figures[phase][name]
            print(f"{label + ', ' + phase:<22}{row['count']:>8}{ms(row['p50']):>10}{ms(row['p99']):>10}"
                  f"{ms(row['max']):>10}{len(row['failures']):>8}")
    print(f"\nburst: {figures['burstSeconds']} s until the last answer")
    for kind, label in (("uploads", "uploads"), ("pins", "PINs")):
        for outcome, row in figures[kind].items():
            print(f"  {label} {outcome}: {row['count']}, answered in p50 {ms(row['p50'])} ms, max {ms(row['max'])} ms")
    for phase in ("idle", "loaded"):
        for name, row in figures[phase].items():
            for failure in sorted(set(row["failures"]))[:3]:
                print(f"  {name} failed ({phase}): {failure}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pictures", type=int, default=32, help="picture uploads at once (default 32)")
    parser.add_argument("--pins", type=int, default=48, help="PIN inputs at once (default 48)")
    parser.add_argument("--megapixels", type=float, default=24,
                        help="each picture's size (default 24; the server takes up to 40)")
    parser.add_argument("--idle", type=float, default=5, help="seconds of idle sampling (default 5)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds any one request may take (default 60)")
    parser.add_argument("--json", type=pathlib.Path, help="also write the figures to this file")
    args = parser.parse_args()
    try:
        figures = measure(args)
    except (Failure, requests.RequestException, websocket.WebSocketException) as failure:
        sys.exit(f"responsiveness: {type(failure).__name__}: {failure}")
    print_report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
