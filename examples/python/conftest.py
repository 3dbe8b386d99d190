"""The example suite's setup: the suite's fixture set and key, and a client per test.

The fake and a session per test come from the ``passportal-docs-fake`` pytest plugin
(``passportal_session``); after each test its violations fail that test."""

import json
from pathlib import Path

import pytest

from documents_client import DocumentsClient

SUITE_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "suite"


def load_fixture_set(folder: Path) -> dict:
    """A folder of per-kind files (documents.json, ...) as one fixture set."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


FIXTURES = load_fixture_set(SUITE_FIXTURES)
HARBOUR_KEY = next(key for key in FIXTURES["apiKeys"] if key["organizationId"] == 1)


def pytest_collection_modifyitems(items):
    # Every test of this suite starts from the suite's fixture set.
    for item in items:
        item.add_marker(pytest.mark.passportal_session(fixtures=FIXTURES))


@pytest.fixture
def client(passportal_session):
    documents = DocumentsClient(HARBOUR_KEY["keyId"], HARBOUR_KEY["secret"], base_url=passportal_session.base_url)
    yield documents
    documents.close()
