"""Every field of every admin operation, sent through the admin client to the real fake.

One test per operation that takes fields (``REQUEST_FIELDS``, made from the spec): it sends each of
them and asserts what the fake did with it, while the client's field check records what was sent.
A field the spec gains (``npm run generate``) fails its operation's test, naming the field, until a
test here sends it.
"""

from __future__ import annotations

import secrets
from typing import Callable, Dict, List, Set, Tuple

import pytest
from helpers import api, token_for

import passportal_fake.admin as admin_module
from passportal_fake import AdminError, PassportalFake, Session
from passportal_fake._spec_types import REQUEST_FIELDS

Driver = Callable[[PassportalFake, Session], None]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Set[Tuple[str, str]]:
    """The (operation, field) pairs the client sent during the test."""
    seen: Set[Tuple[str, str]] = set()
    check = admin_module._checked

    def recording(operation, method, fields):
        present = check(operation, method, fields)
        seen.update((operation, name) for name in present)
        return present

    monkeypatch.setattr(admin_module, "_checked", recording)
    return seen


def documents(session: Session, token: str, query: str) -> int:
    return api(session.base_url, "GET", "/api/v2/documents" + query, token)[0]


def list_requests(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    token = token_for(session)
    admin.expect_violation(path="/api/v2/documents", location="query.pageNum")  # provoked below
    assert documents(session, token, "?pageNum=1") == 200
    assert documents(session, token, "?pageNum=zero") == 404  # a violation (the vendor answers 404)
    assert documents(session, token, "") == 200  # no pageNum: a notice
    first = admin.requests(path="/api/v2/documents", method="GET", order="asc", limit=1, offset=0)
    assert first["count"] == 3 and len(first["requests"]) == 1
    newest = admin.requests(path="/api/v2/documents", order="desc", limit=1)["requests"][0]
    assert newest["query"] == {}
    assert admin.requests(path="/api/v2/documents", offset=2)["requests"][0]["id"] == newest["id"]
    [violating] = admin.requests(path="/api/v2/documents", violations=True)["requests"]
    assert violating["status"] == 404
    assert [e["id"] for e in admin.requests(path="/api/v2/documents", notices=True)["requests"]] == [newest["id"]]
    assert admin.requests(path="/api/v2/documents", status=404)["count"] == 1
    assert [e["id"] for e in admin.requests(since=violating["id"])["requests"]] == [newest["id"]]


def get_request(fake: PassportalFake, session: Session) -> None:
    token = token_for(session)
    assert documents(session, token, "?pageNum=1") == 200
    entry = session.admin.requests(order="desc", limit=1)["requests"][0]
    whole = session.admin.request(entry["id"])
    assert (whole["id"], whole["path"], whole["status"]) == (entry["id"], "/api/v2/documents", 200)


def reports(operation: str) -> Driver:
    def drive(fake: PassportalFake, session: Session) -> None:
        # A run of its own, so clearing it leaves the run this suite reports untouched.
        label = f"fields-{secrets.token_hex(4)}"
        own = fake.admin.create_session(run=label)
        try:
            api(own.base_url, "GET", "/api/v2/documents?pageNum=1", token_for(own))
            if operation == "getReport":
                report = fake.admin.report(run=label)
                assert isinstance(report, dict) and report["run"] == label
                markdown = fake.admin.report(format="markdown", run=label)
                assert isinstance(markdown, str) and markdown.strip()
                # One process is a whole fleet: nothing is missing, so a partial report is the run's.
                whole = fake.admin.report(run=label, partial="1")
                assert isinstance(whole, dict) and whole["run"] == label
                asked = lambda: fake.admin.report(run=label, tenant="nobody")  # noqa: E731
            else:
                before = fake.admin.report(run=label)
                assert isinstance(before, dict) and before["requests"]["total"] >= 1
                fake.admin.clear_report(run=label)
                after = fake.admin.report(run=label)
                assert isinstance(after, dict) and after["requests"]["total"] == 0  # forgotten
                asked = lambda: fake.admin.clear_report(run=label, tenant="nobody")  # noqa: E731
            # Without --tenants no tenant exists: the fake reads the field and names it.
            with pytest.raises(AdminError) as refused:
                asked()
            assert refused.value.status == 400 and "query.tenant" in str(refused.value.body)
        finally:
            fake.admin.delete_session(own.id)

    return drive


def expected_violation(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    token = token_for(session)
    declared = admin.expect_violation(method="get", path="/api/v2/documents*", location="query.pageNum", times=2)
    documents(session, token, "?pageNum=zero")
    documents(session, token, "?pageNum=-1")
    [met] = admin.expected_violations()
    assert (met["id"], met["met"], met["times"]) == (declared, 2, 2)
    admin.remove_expected_violation(declared)
    assert admin.expected_violations() == []


def faults(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    token = token_for(session)
    chance = admin.add_fault(
        method="GET",
        path="/api/v2/documents",
        status=503,
        body={"message": "busy"},
        headers={"Retry-After": "5"},
        times=1,
        after=1,
        probability=1.0,
        seed=7,
    )
    [listed] = admin.faults()
    assert listed["id"] == chance and listed["seed"] == 7 and listed["probability"] == 1
    assert documents(session, token, "?pageNum=1") == 200  # `after`: the first goes through
    status, body = api(session.base_url, "GET", "/api/v2/documents?pageNum=1", token)
    assert (status, body["message"]) == (503, "busy")
    assert admin.faults() == []  # `times` used up
    slow = admin.add_fault(path="/api/v2/documents", delay_ms=1, times=1)
    assert documents(session, token, "?pageNum=1") == 200
    assert admin.faults() == []
    dropped = admin.add_fault(path="/api/v2/documents*", drop=True)
    with pytest.raises(OSError):
        documents(session, token, "?pageNum=1")
    admin.remove_fault(dropped)
    assert slow != dropped and admin.faults() == []


def rate_limits(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    token = token_for(session)
    limit = admin.add_rate_limit(per="token", limit=1, window_seconds=60, method="GET", path="/api/v2/documents")
    assert documents(session, token, "?pageNum=1") == 200
    assert documents(session, token, "?pageNum=1") == 429
    admin.remove_rate_limit(limit)
    assert admin.rate_limits() == []


def scenario_steps(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    token = token_for(session)
    step = {"kind": "fault", "fault": {"path": "/api/v2/documents", "status": 503, "times": 1}}
    applied = admin.apply_scenario("down-once", steps=[step])
    assert applied in [a["id"] for a in admin.scenarios()["applied"]]
    assert documents(session, token, "?pageNum=1") == 503
    assert documents(session, token, "?pageNum=1") == 200


def clock(fake: PassportalFake, session: Session) -> None:
    admin = session.admin
    assert admin.set_clock(1_800_000_000)["now"] == 1_800_000_000
    assert admin.advance_clock(60)["now"] >= 1_800_000_060


def settings(fake: PassportalFake, session: Session) -> None:
    changes = {
        "tokenTtlSeconds": 120,
        "hashEncoding": "any",
        "defaultPageNum": 2,
        "maxResultsPerPage": 50,
        "unknownDetailKeys": "accept",
        "successLiterals": "boolean",
        "errorSuccess": "string",
        "readShapedDetails": "reject",
        "latencyMs": 1,
        "maxBatchItems": 10,
        "maxCreatedDocuments": 5,
        "validateResponses": True,
    }
    answered = session.admin.update_settings(changes)
    assert {key: answered[key] for key in changes} == changes
    assert session.admin.settings() == answered


def sessions(fake: PassportalFake, session: Session) -> None:
    state = session.admin.state()
    fixtures = {**state, "documents": state["documents"][:1]}
    label = f"fields-{secrets.token_hex(4)}"
    own = fake.admin.create_session(own_keys=True, run=label, fixtures=fixtures, expires=False)
    try:
        assert len(own.admin.state()["documents"]) == 1
        assert own.keys and own.run == label
        [info] = [s for s in fake.admin.sessions() if s["id"] == own.id]
        assert info["expires"] is False and info["run"] == label and info["ownKeyIds"]
        # One process is a whole fleet: nothing is missing, so partial lists the same sessions.
        assert own.id in [s["id"] for s in fake.admin.sessions(partial="1")]
    finally:
        fake.admin.delete_session(own.id)
    assert own.id not in [s["id"] for s in fake.admin.sessions()]


DRIVERS: Dict[str, Driver] = {
    "listRequests": list_requests,
    "getRequest": get_request,
    "getReport": reports("getReport"),
    "clearReport": reports("clearReport"),
    "createExpectedViolation": expected_violation,
    "deleteExpectedViolation": expected_violation,
    "createFault": faults,
    "deleteFault": faults,
    "createRateLimit": rate_limits,
    "deleteRateLimit": rate_limits,
    "applyScenario": scenario_steps,
    "setClock": clock,
    "updateSettings": settings,
    "listSessions": sessions,
    "createSession": sessions,
    "deleteSession": sessions,
}

TAKING_FIELDS: List[str] = [operation for operation, fields in REQUEST_FIELDS.items() if fields]


@pytest.mark.parametrize("operation", TAKING_FIELDS)
def test_every_field_of_the_operation_is_sent_and_taken(operation, passportal_fake, passportal_session, sent):
    driver = DRIVERS.get(operation)
    assert driver is not None, f"no test sends {operation}'s fields ({', '.join(REQUEST_FIELDS[operation])})"
    driver(passportal_fake, passportal_session)
    unsent = sorted(set(REQUEST_FIELDS[operation]) - {field for op, field in sent if op == operation})
    assert unsent == [], f"{operation}: no test sends {unsent}"


def test_each_operation_taking_fields_has_its_test():
    assert sorted(DRIVERS) == sorted(TAKING_FIELDS)
