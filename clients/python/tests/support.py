"""What the package's tests share beside their fixtures (the plugin's `authphone` and `phone`,
from the installed package's pytest11 entry point, and conftest.py's `enrolled`): a PIN, unique
user names and a picture of a session's QR code."""

from __future__ import annotations

import re
import secrets

import httpx

from authphone import AuthPhone, Session

PIN = "260418"


def user(name: str) -> str:
    """A user id no other test uses."""
    return f"{name}-{secrets.token_hex(3)}"


def qr_picture(ap: AuthPhone, session: Session, scale: int = 4) -> bytes:
    """A binary PGM of the session's QR code as the backend draws it (an SVG with one
    `Mx yhwv1h-wz` path part per run of dark modules), `scale` pixels a module."""
    svg = httpx.get(f"{ap.url}/api/backend/sessions/{session.id}/qr.svg").text
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))  # type: ignore[union-attr]
    pixels = bytearray([255]) * (size * scale) ** 2
    for x, y, width in (map(int, run) for run in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", svg)):
        for row in range(y * scale, (y + 1) * scale):
            start = row * size * scale + x * scale
            pixels[start:start + width * scale] = bytes(width * scale)
    return f"P5 {size * scale} {size * scale} 255\n".encode() + bytes(pixels)

