"""The admin client against the real fake: one test per group of operations."""

import pytest
from helpers import KEY_ID, SECRET, api, token_for

from passportal_fake import AdminError, ContractViolationError, get_token


def test_health_and_state(passportal_session):
    admin = passportal_session.admin
    assert admin.health()["status"] == "ok"
    state = admin.state()
    assert state["organizations"] and state["documents"]


def test_fixtures_load_and_reset(passportal_session):
    admin = passportal_session.admin
    state = admin.state()
    first = state["documents"][0]
    small = {kind: state[kind] for kind in state}
    small["documents"] = [first]
    assert admin.load_fixtures(small) == 1
    assert len(admin.state()["documents"]) == 1
    token = token_for(passportal_session)
    status, _ = api(passportal_session.base_url, "GET", f"/api/v2/documents/{first['id']}", token)
    assert status == 200
    admin.reset()
    assert admin.requests()["count"] == 0


def test_journal_reads_one_request_and_clears(passportal_session):
    admin = passportal_session.admin
    token = token_for(passportal_session)
    api(passportal_session.base_url, "GET", "/api/v2/documents?pageNum=1&resultsPerPage=2", token)
    page = admin.requests(path="/api/v2/documents", method="get")
    assert page["count"] == 1
    entry = admin.request(page["requests"][0]["id"])
    assert entry["status"] == 200 and entry["method"] == "GET"
    admin.clear_requests()
    assert admin.requests()["count"] == 0
    with pytest.raises(AdminError) as caught:
        admin.request(999999)
    assert caught.value.status == 404


def test_an_argument_out_of_the_spec_bounds_is_refused_before_sending(passportal_session):
    admin = passportal_session.admin
    with pytest.raises(ValueError) as low:
        admin.add_fault(status=99)
    assert "add_fault: status must be at least 200, not 99 (createFault in the spec)" == str(low.value)
    with pytest.raises(ValueError) as high:
        admin.add_rate_limit(per="key", limit=1, window_seconds=86_401)
    assert "windowSeconds must be at most 86400" in str(high.value)
    with pytest.raises(ValueError) as other:
        admin.requests(order="newest")
    assert "requests: order must be one of 'asc', 'desc'" in str(other.value)
    with pytest.raises(ValueError) as unknown:
        admin.update_settings(tokenTtl=60)
    assert "updateSettings takes no field 'tokenTtl'" in str(unknown.value)
    assert admin.faults() == [] and admin.rate_limits() == []  # nothing was sent


def test_a_refusal_carries_status_and_the_vendor_message(passportal_session):
    with pytest.raises(AdminError) as caught:
        passportal_session.admin.add_fault(path="api/v2/documents")  # no leading slash
    error = caught.value
    assert error.status == 400
    assert error.body["success"] in (False, "false")
    assert error.message
    assert "answered 400" in str(error) and error.message in str(error)


def test_faults_answer_fail_and_go(passportal_session):
    admin = passportal_session.admin
    token = token_for(passportal_session)
    fault = admin.add_fault(method="GET", path="/api/v2/documents", status=503, body={"message": "busy"}, times=1)
    assert [f["id"] for f in admin.faults()] == [fault]
    status, body = api(passportal_session.base_url, "GET", "/api/v2/documents", token)
    assert (status, body["message"]) == (503, "busy")
    assert admin.faults() == []
    second = admin.add_fault(path="/api/v2/documents*", delay_ms=1)
    admin.remove_fault(second)
    admin.add_fault(path="/api/v2/documents*", drop=True)
    admin.clear_faults()
    assert admin.faults() == []
    with pytest.raises(AdminError) as caught:
        admin.remove_fault("no-such-fault")
    assert caught.value.status == 404


def test_clock_expires_tokens(passportal_session):
    admin = passportal_session.admin
    token = get_token(passportal_session.base_url, KEY_ID, SECRET)
    before = admin.clock()
    after = admin.advance_clock(int(token["expiry_time"]) - before["now"] + 1)
    assert after["now"] > int(token["expiry_time"])
    status, body = api(passportal_session.base_url, "GET", "/api/v2/documents", token["access_token"])
    assert status == 401 and body["code"] == 1006
    assert admin.set_clock(1_735_693_200)["now"] == 1_735_693_200


def test_revoke_tokens(passportal_session):
    token = token_for(passportal_session)
    assert passportal_session.admin.revoke_tokens() >= 1
    status, _ = api(passportal_session.base_url, "GET", "/api/v2/documents", token)
    assert status == 401


def test_settings(passportal_session):
    admin = passportal_session.admin
    assert admin.update_settings(tokenTtlSeconds=60)["tokenTtlSeconds"] == 60
    assert admin.settings()["tokenTtlSeconds"] == 60
    assert admin.update_settings({"latencyMs": 0})["tokenTtlSeconds"] == 60


def test_notices_and_report(passportal_fake):
    # A session of its own: clearing a passportal_session's report fails the plugin's check.
    session = passportal_fake.admin.create_session()
    try:
        admin = session.admin
        token = token_for(session)
        api(session.base_url, "GET", "/api/v2/documents", token)  # no pageNum: a notice
        assert any(record["path"] == "/api/v2/documents" for record in admin.notices())
        report = admin.report()
        assert isinstance(report, dict) and report["coverage"]["operations"]["exercised"] >= 2
        junit = admin.report("junit")
        assert isinstance(junit, str) and junit.lstrip().startswith("<?xml")
        assert admin.report("markdown").strip()
        admin.clear_report()
        cleared = admin.report()
        assert isinstance(cleared, dict) and cleared["requests"]["total"] == 0
    finally:
        passportal_fake.admin.delete_session(session.id)


def test_sessions_own_keys_and_delete(passportal_fake):
    admin = passportal_fake.admin
    session = admin.create_session(own_keys=True, expires=False)
    try:
        assert session.base_url.endswith(f"/sessions/{session.id}")
        assert session.keys and all(key["secret"] for key in session.keys)
        assert session.id in [s["id"] for s in admin.sessions()]
        key = session.keys[0]
        token = get_token(passportal_fake.url, key["keyId"], key["secret"])  # at the root URL
        assert token["access_token"]
        assert session.admin.requests()["count"] == 1
    finally:
        admin.delete_session(session.id)
    assert session.id not in [s["id"] for s in admin.sessions()]
    with pytest.raises(AdminError) as caught:
        admin.delete_session(session.id)
    assert caught.value.status == 404


def test_expect_no_violations_lists_each_violation_never_the_token(passportal_fake):
    # A session of its own: the plugin's check would fail a passportal_session that broke the contract.
    session = passportal_fake.admin.create_session()
    try:
        admin = session.admin
        token = token_for(session)
        admin.expect_no_violations()
        api(session.base_url, "GET", "/api/v2/documents?pageNum=zero", token)
        with pytest.raises(AssertionError) as caught:
            admin.expect_no_violations()
    finally:
        passportal_fake.admin.delete_session(session.id)
    error = caught.value
    assert isinstance(error, ContractViolationError)
    text = str(error)
    assert "GET /api/v2/documents" in text
    assert "query.pageNum" in text
    [record] = error.violations
    assert record["violations"][0]["message"] in text
    assert token not in text and SECRET not in text


def test_drain_needs_a_fleet(passportal_fake):
    # Outside a fleet there is nothing to drain: 409 notInFleet, and sessions are still created.
    with pytest.raises(AdminError) as outside:
        passportal_fake.admin.drain()
    assert outside.value.status == 409 and "fleet" in str(outside.value)
    passportal_fake.admin.delete_session(passportal_fake.admin.create_session().id)
