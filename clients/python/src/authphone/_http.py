"""The one place requests are sent: JSON in and out, and every refusal raised as an AuthPhoneError."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .errors import AuthPhoneError, error_for

JSON = dict[str, Any]


class Http:
    """An httpx client for one server that raises the API's refusals as exceptions."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.client = httpx.Client(base_url=self.base_url, timeout=timeout)

    def request(self, method: str, path: str, *, body: Any = None, content: bytes | None = None,
                content_type: str = "application/json", params: Any = None,
                auth: tuple[str, str] | None = None) -> httpx.Response:
        """Sends the request (with HTTP basic `auth` when given); a 4xx or 5xx answer raises the
        matching AuthPhoneError."""
        headers = {}
        if body is not None:
            content = json.dumps(body).encode()
        if content is not None or method in ("POST", "PUT"):
            headers["Content-Type"] = content_type
        response = self.client.request(method, path, content=content, params=params, headers=headers, auth=auth)
        if response.status_code >= 400:
            raise refusal(response)
        return response

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        """The answer's JSON (None for an empty answer)."""
        response = self.request(method, path, **kwargs)
        return response.json() if response.content else None

    def close(self) -> None:
        self.client.close()


def refusal(response: httpx.Response) -> AuthPhoneError:
    """The exception for a refused request: AuthPhone's `{"error": {"code", "message"}}`, or the push
    service's FCM-shaped error, whose code is FCM's error code (`UNREGISTERED`, …) or else its `status`."""
    try:
        error = response.json()["error"]
        code = error["code"]
        if isinstance(code, int):  # FCM's shape: the number is the HTTP status
            fcm_codes = [detail["errorCode"] for detail in error.get("details", []) if "errorCode" in detail]
            code = fcm_codes[0] if fcm_codes else error["status"]
        return error_for(response.status_code, str(code), str(error.get("message", "")), error)
    except (ValueError, KeyError, TypeError):
        text = response.text[:500] or response.reason_phrase
        return error_for(response.status_code, f"HTTP_{response.status_code}", text, {})
