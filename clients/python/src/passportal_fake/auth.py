"""The vendor's token call: ``x-hash`` signing and ``POST /api/v2/auth/client_token``."""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import urllib.parse
from typing import Any, Dict, Optional

from .errors import ApiError
from .transport import parse_json, redirect_refusal, send

DEFAULT_CONTENT = "api-content-hash"


def sign(secret: str, content: str) -> str:
    """The ``x-hash`` header: HMAC-SHA256 of ``content`` keyed with the secret, lower-case hex."""
    return hmac.new(secret.encode("utf-8"), content.encode("utf-8"), hashlib.sha256).hexdigest()


def get_token(
    base_url: str,
    key_id: str,
    secret: str,
    content: str = DEFAULT_CONTENT,
    scope: str = "docs_api",
    form: bool = False,
    ssl_context: Optional[ssl.SSLContext] = None,
    timeout: float = 30.0,
) -> Dict[str, Any]:
    """Exchanges an API key for an access token at ``base_url`` (the fake's or a session's):
    ``{"success", "access_token", "refresh_token", "expiry_time"}``. ``form=True`` sends the body
    form-encoded instead of JSON. A refusal raises ``ApiError`` with the vendor's message
    (``Key verification failed``, code 1000)."""
    fields = {"scope": scope, "content": content}
    if form:
        body = urllib.parse.urlencode(fields).encode("utf-8")
        content_type = "application/x-www-form-urlencoded"
    else:
        body = json.dumps(fields).encode("utf-8")
        content_type = "application/json"
    headers = {"content-type": content_type, "x-key": key_id, "x-hash": sign(secret, content)}
    path = "/api/v2/auth/client_token"
    url = base_url.rstrip("/") + path
    status, answered, answer = send("POST", url, body, headers, timeout, ssl_context)
    refusal = redirect_refusal(status, answered, url)
    if refusal is not None:
        raise ApiError("POST", path, status, {"message": refusal})
    parsed = parse_json(answer)
    if status >= 400 or not isinstance(parsed, dict) or "access_token" not in parsed:
        raise ApiError("POST", path, status, parsed if isinstance(parsed, dict) else None)
    return parsed
