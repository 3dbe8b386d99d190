"""Plain HTTP calls with the standard library, never through a proxy the environment names.

A suite under test often sets ``HTTPS_PROXY``/``HTTP_PROXY`` for its own client (to reach the
fake's proxy); the admin calls go straight to the fake whatever those say.

Redirects are never followed by urllib: a call carries the admin token or a key's ``x-hash``, which
must not travel to another origin, and a redirected ``POST`` must not turn into a ``GET``. A
``307`` or ``308`` to the same origin (scheme, host and port) is followed with the same method,
body and headers, at most ``MAX_REDIRECTS`` times; any other redirect is answered as it came (its
3xx status and ``location`` header), for the caller to refuse.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Tuple

#: Most same-origin 307/308 redirects one call follows.
MAX_REDIRECTS = 5


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hands every redirect back to ``send`` (as an ``HTTPError``) instead of following it."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> Optional[urllib.request.Request]:
        return None


def _opener(context: Optional[ssl.SSLContext]) -> urllib.request.OpenerDirector:
    """An opener for one call: no proxy, no redirect followed, the caller's TLS context. Made per
    call (it costs microseconds), so nothing outlives the context it was made with."""
    handlers: List[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({}), _NoRedirect()]
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    return urllib.request.build_opener(*handlers)


def origin(url: str) -> Tuple[str, str, int]:
    """(scheme, host, port) of an absolute URL, the port filled in from the scheme."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port if parts.port is not None else (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


def send(
    method: str,
    url: str,
    body: Optional[bytes] = None,
    headers: Optional[Mapping[str, str]] = None,
    timeout: float = 30.0,
    context: Optional[ssl.SSLContext] = None,
) -> Tuple[int, Dict[str, str], bytes]:
    """Sends one request; answers (status, lower-cased headers, body) for every HTTP status.

    Follows a ``307``/``308`` to the same origin with the same method, body and headers; answers
    any other redirect as it came (the caller refuses it)."""
    for _ in range(MAX_REDIRECTS + 1):
        status, answered, data = _send_once(method, url, body, headers, timeout, context)
        target = answered.get("location")
        if status not in (307, 308) or not target:
            return status, answered, data
        following = urllib.parse.urljoin(url, target)
        if origin(following) != origin(url):
            return status, answered, data
        url = following
    return status, answered, data


def _send_once(
    method: str,
    url: str,
    body: Optional[bytes],
    headers: Optional[Mapping[str, str]],
    timeout: float,
    context: Optional[ssl.SSLContext],
) -> Tuple[int, Dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    try:
        with _opener(context).open(request, timeout=timeout) as response:
            return response.status, _headers(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _headers(error.headers), error.read()


def redirect_refusal(status: int, headers: Mapping[str, str], url: str) -> Optional[str]:
    """Why a 3xx answer is refused (``None`` for any other status): where it pointed, and that
    credentials never follow a redirect to another origin or a changed method."""
    if not 300 <= status < 400:
        return None
    target = headers.get("location")
    if not target:
        return f"answered a redirect ({status}) without a location"
    following = urllib.parse.urljoin(url, target)
    there = urllib.parse.urlsplit(following)
    shown = f"{there.scheme}://{there.netloc.rpartition('@')[2]}{there.path}"
    if origin(following) != origin(url):
        why = "another origin: the call's credentials are never sent there"
    elif status in (307, 308):
        why = f"the same origin more than {MAX_REDIRECTS} times"
    else:
        why = "the same origin with a changed method; only 307 and 308 keep it, and are followed"
    return f"answered a redirect ({status}) to {shown}, {why}; give the fake's own URL"


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
