"""A relying party's login page that needs push approval, as the browser examples test it: the
form posts a user name; the page starts a push login at AuthPhone's demo backend, waits for its
outcome and shows "Welcome, USER" (or why not)."""

from __future__ import annotations

import html
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from authphone import AuthPhone, AuthPhoneError

FORM = """<!doctype html><title>Example login</title>
<form method="post" action="/login"><label>User <input name="user" id="user"></label>
<button id="login">Log in</button></form>"""


@contextmanager
def serving(authphone: AuthPhone) -> Iterator[str]:
    """The page on a free loopback port while the block runs: its URL."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.answer(200, FORM)

        def do_POST(self) -> None:
            form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            user = form.get("user", [""])[0]
            try:
                outcome = authphone.backend.start_login(user, push=True).wait_outcome(timeout=20)
            except AuthPhoneError as error:
                outcome = error.code
            message = f"Welcome, {user}" if outcome == "loggedin" else f"Login failed: {outcome}"
            self.answer(200, f"<!doctype html><title>Example login</title><h1>{html.escape(message)}</h1>")

        def answer(self, status: int, page: str) -> None:
            body = page.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test's output is for the test

    with ThreadingHTTPServer(("127.0.0.1", 0), Page) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
