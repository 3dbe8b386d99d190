"""Expected violations, rate limits and scenarios: the admin operations of this round's spec."""

import pytest

from helpers import api, token_for

from passportal_fake import AdminError


def test_a_declared_violation_is_left_out_and_counted(passportal_session):
    admin = passportal_session.admin
    token = token_for(passportal_session)
    expectation = admin.expect_violation(method="GET", path="/api/v2/documents", location="query.pageNum")
    [declared] = admin.expected_violations()
    assert declared["id"] == expectation and declared["met"] == 0 and declared["times"] == 1
    with pytest.raises(AssertionError) as unmet:
        admin.expect_no_violations()
    assert "never came" in str(unmet.value) and "query.pageNum" in str(unmet.value)
    api(passportal_session.base_url, "GET", "/api/v2/documents?pageNum=zero", token)
    assert admin.violations() == []
    assert admin.expected_violations()[0]["met"] == 1
    admin.expect_no_violations()
    admin.remove_expected_violation(expectation)
    assert admin.expected_violations() == []
    admin.expect_violation(location="body/colour", times=2)
    admin.clear_expected_violations()
    assert admin.expected_violations() == []
    with pytest.raises(AdminError) as caught:
        admin.remove_expected_violation("no-such-expectation")
    assert caught.value.status == 404


def test_rate_limits(passportal_session):
    admin = passportal_session.admin
    token = token_for(passportal_session)
    limit = admin.add_rate_limit(per="session", limit=1, window_seconds=60, path="/api/v2/documents")
    assert [r["id"] for r in admin.rate_limits()] == [limit]
    assert api(passportal_session.base_url, "GET", "/api/v2/documents?pageNum=1", token)[0] == 200
    assert api(passportal_session.base_url, "GET", "/api/v2/documents?pageNum=1", token)[0] == 429
    admin.remove_rate_limit(limit)
    admin.add_rate_limit(per="instance", limit=5, window_seconds=1)
    admin.clear_rate_limits()
    assert admin.rate_limits() == []


def test_scenarios(passportal_session):
    admin = passportal_session.admin
    listed = admin.scenarios()
    names = {scenario["name"] for scenario in listed["scenarios"]}
    assert {"token-expires-mid-crawl", "throttled", "flaky", "changed-under-you"} <= names
    applied = admin.apply_scenario("throttled", limit=2, windowSeconds=60)
    assert applied in [a["id"] for a in admin.scenarios()["applied"]]
    admin.clear_scenarios()
    assert admin.scenarios()["applied"] == []
