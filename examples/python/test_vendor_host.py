"""The client pinned to https://us-clover.passportalmsp.com, unchanged: the fake's proxy serves
that host, its CA is trusted, and the session is the proxy user so the requests land in it."""

from documents_client import DocumentsClient


def test_the_vendors_host_through_the_proxy(passportal_fake, passportal_session, monkeypatch):
    for name, value in passportal_fake.client_env(passportal_session).items():
        monkeypatch.setenv(name, value)
    from conftest import HARBOUR_KEY

    client = DocumentsClient(HARBOUR_KEY["keyId"], HARBOUR_KEY["secret"], region="us-clover")
    try:
        assert client.base_url == "https://us-clover.passportalmsp.com"
        assert client.get_document(300003)["templateUid"] == "tpl-79"
    finally:
        client.close()
    [entry] = passportal_session.admin.requests(path="/api/v2/documents/300003")["requests"]
    assert entry["status"] == 200
