"""What the package's tests share: the default fixtures' API key and a bare API call.

The one module tests import besides the package (``pythonpath`` in pyproject.toml puts this folder
on the path, so it imports alike under every ``--import-mode``); fixtures live in ``conftest.py``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Optional, Tuple

from passportal_fake import Session, get_token

#: The first API key of the fake's default fixtures, and its secret.
KEY_ID = "375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0"
SECRET = "fake-secret-1-0799cc6103334c167a65e28e"


def api(base_url: str, method: str, path: str, token: Optional[str] = None, body: Any = None) -> Tuple[int, Any]:
    """A bare API call (no proxy): (status, parsed body)."""
    headers = {"content-type": "application/json"}
    if token:
        headers["x-access-token"] = token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url + path, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def token_for(session: Session) -> str:
    """An access token for the default key, issued by the session."""
    return str(get_token(session.base_url, KEY_ID, SECRET)["access_token"])
