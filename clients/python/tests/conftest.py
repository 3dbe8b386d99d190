"""The package's own tests run against a real fake: the plugin's ``passportal_fake`` (by
``--passportal-url``, ``--passportal-image`` or the npm command), and pytester for the plugin."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

KEY_ID = "375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0"
SECRET = "fake-secret-1-0799cc6103334c167a65e28e"


@pytest.fixture
def inner_args(passportal_fake):
    """Arguments for an inner pytest run (pytester) that uses this run's fake."""
    return ["-p", "no:cacheprovider", f"--passportal-url={passportal_fake.url}"]
