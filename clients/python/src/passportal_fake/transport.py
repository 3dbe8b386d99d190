"""Plain HTTP calls with the standard library, never through a proxy the environment names.

A suite under test often sets ``HTTPS_PROXY``/``HTTP_PROXY`` for its own client (to reach the
fake's proxy); the admin calls go straight to the fake whatever those say.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Tuple

_OPENER_BY_CONTEXT: Dict[int, urllib.request.OpenerDirector] = {}


def _opener(context: Optional[ssl.SSLContext]) -> urllib.request.OpenerDirector:
    key = id(context)
    opener = _OPENER_BY_CONTEXT.get(key)
    if opener is None:
        handlers: List[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({})]
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        opener = urllib.request.build_opener(*handlers)
        _OPENER_BY_CONTEXT[key] = opener
    return opener


def send(
    method: str,
    url: str,
    body: Optional[bytes] = None,
    headers: Optional[Mapping[str, str]] = None,
    timeout: float = 30.0,
    context: Optional[ssl.SSLContext] = None,
) -> Tuple[int, Dict[str, str], bytes]:
    """Sends one request; answers (status, lower-cased headers, body) for every HTTP status."""
    request = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    try:
        with _opener(context).open(request, timeout=timeout) as response:
            return response.status, _headers(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _headers(error.headers), error.read()


def _headers(message: Any) -> Dict[str, str]:
    return {key.lower(): value for key, value in message.items()} if message is not None else {}


def parse_json(data: bytes) -> Any:
    """The JSON of a body, or ``None`` when it is empty or not JSON."""
    if not data:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
