"""What the client does against the fake, one session per test (lines a team writes: this file)."""

import pytest

from documents_client import PassportalError


def test_lists_every_document_page_by_page(client):
    documents = client.list_all(results_per_page=2, orderBy="label", orderDir="asc")
    assert [d["label"] for d in documents] == [
        "bakery office laptop",
        "Bakery Router",
        "Bakery Till PC",
        "Dental Reception PC",
        "dental x-ray server",
        "Lighthouse Dental Surgery",
    ]


def test_filters_by_client(client):
    assert [d["id"] for d in client.list_all(clientId=7002)] == [300004, 300005, 300006]


def test_reads_one_document(client):
    document = client.get_document(300003)
    assert document["templateUid"] == "tpl-79"
    assert document["details"]["serial_number"]["value"]["text"] == "SN-BK-0003"


def test_updates_one_detail_and_keeps_the_others(client):
    entry = {"name": "Serial Number", "description": "", "value": {"type": "string", "text": "SN-BK-0003-R"}}
    client.set_detail(300003, "serial_number", entry)
    document = client.get_document(300003)
    assert document["details"]["serial_number"]["value"]["text"] == "SN-BK-0003-R"
    assert document["details"]["manufacturer"]["value"]["text"] == "Ubiquiti"


def test_another_organizations_document_is_not_found(client):
    with pytest.raises(PassportalError) as caught:
        client.get_document(400001)
    assert (caught.value.status, caught.value.body["message"]) == (403, "not found.")


def test_retries_a_503_once(client, passportal_session):
    passportal_session.admin.add_fault(method="GET", path="/api/v2/documents/300003", status=503, times=1)
    assert client.get_document(300003)["id"] == 300003
    assert passportal_session.admin.requests(path="/api/v2/documents/300003")["count"] == 2


def test_renews_the_token_when_the_clock_passes_its_expiry(client, passportal_session):
    client.get_document(300003)
    passportal_session.admin.advance_clock(3301)  # past expiry_time: the fake answers 401 code 1006
    assert client.get_document(300003)["id"] == 300003
    assert passportal_session.admin.requests(path="/api/v2/auth/client_token")["count"] == 2


def test_renews_a_revoked_token(client, passportal_session):
    client.get_document(300003)
    passportal_session.admin.revoke_tokens()
    assert client.get_document(300003)["id"] == 300003


@pytest.mark.passportal_expect_violation(method="GET", path="/api/v2/documents", location="query.pageNum")
def test_a_page_number_of_zero_is_refused(client):
    # Sent on purpose: declared above, so the per-test check lets it pass.
    with pytest.raises(PassportalError) as caught:
        client.list_page(0)
    assert caught.value.status == 404
