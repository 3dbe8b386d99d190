"""Admin calls and the token call never follow a redirect with their credentials to another
origin, and never turn a redirected POST into a GET (loopback stand-ins answer the redirects)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from passportal_fake import AdminClient, AdminError, ApiError, get_token

TOKEN = "admin-token-that-stays-home"


class StandIn:
    """A loopback server that records each request and answers what `routes` says for its path."""

    def __init__(self):
        self.seen = []
        self.routes = {}
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                stand_in.seen.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                status, headers = stand_in.routes.get(self.path, (200, {}))
                payload = b'{"id": "f1", "success": true}'
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers():
    first, other = StandIn(), StandIn()
    yield first, other
    first.close()
    other.close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_the_token_stays(servers, status):
    fake, elsewhere = servers
    fake.routes["/__admin/reset"] = (status, {"location": f"{elsewhere.url}/__admin/reset"})
    with pytest.raises(AdminError) as caught:
        AdminClient(fake.url, TOKEN).reset()
    assert caught.value.status == status
    assert f"to {elsewhere.url}/__admin/reset, another origin" in str(caught.value)
    assert "give the fake's own URL" in str(caught.value)
    assert elsewhere.seen == []
    assert TOKEN not in str(caught.value)


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_redirect_that_would_change_the_method_is_refused(servers, status):
    fake, _ = servers
    fake.routes["/__admin/reset"] = (status, {"location": "/__admin/elsewhere"})
    with pytest.raises(AdminError) as caught:
        AdminClient(fake.url, TOKEN).reset()
    assert "changed method" in str(caught.value)
    assert [seen["path"] for seen in fake.seen] == ["/__admin/reset"]


@pytest.mark.parametrize("status", [307, 308])
def test_a_same_origin_307_or_308_is_followed_with_method_body_and_token(servers, status):
    fake, _ = servers
    fake.routes["/__admin/faults"] = (status, {"location": "/moved/__admin/faults"})
    assert AdminClient(fake.url, TOKEN).add_fault(status=503, times=1) == "f1"
    first, followed = fake.seen
    assert followed["method"] == "POST" and followed["path"] == "/moved/__admin/faults"
    assert json.loads(followed["body"]) == json.loads(first["body"]) == {"status": 503, "times": 1}
    assert followed["headers"].get("authorization") == f"Bearer {TOKEN}"


def test_a_redirect_loop_on_the_same_origin_ends(servers):
    fake, _ = servers
    fake.routes["/__admin/reset"] = (307, {"location": "/__admin/reset"})
    with pytest.raises(AdminError) as caught:
        AdminClient(fake.url, TOKEN).reset()
    assert "more than 5 times" in str(caught.value)
    assert len(fake.seen) == 6


def test_the_token_call_never_sends_the_key_elsewhere(servers):
    fake, elsewhere = servers
    fake.routes["/api/v2/auth/client_token"] = (308, {"location": f"{elsewhere.url}/api/v2/auth/client_token"})
    with pytest.raises(ApiError) as caught:
        get_token(fake.url, "key-id", "key-secret")
    assert caught.value.status == 308 and "another origin" in str(caught.value)
    assert elsewhere.seen == []
