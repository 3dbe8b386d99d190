"""The package's own tests run against a real fake: the plugin's ``passportal_fake`` (by
``--passportal-url``, ``--passportal-image`` or the npm command), and pytester for the plugin.
Fixtures only: what tests share besides fixtures is in ``helpers.py``."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def inner_args(passportal_fake):
    """Arguments for an inner pytest run (pytester) that uses this run's fake."""
    return ["-p", "no:cacheprovider", f"--passportal-url={passportal_fake.url}"]
