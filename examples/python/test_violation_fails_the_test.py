"""A test whose client breaks the contract fails, with the violation as that test's failure."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_violation_is_the_tests_failure(passportal_fake, tmp_path):
    junit = tmp_path / "junit.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "deliberate_violation.py", f"--passportal-url={passportal_fake.url}",
         f"--junitxml={junit}", "-q"],
        cwd=HERE, capture_output=True, text=True, timeout=300,
    )
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "1 failed" in out and " error" not in out
    assert "FAILED deliberate_violation.py::test_reads_the_first_page" in out
    assert "GET /api/v2/documents -> 404" in out and "query.pageNum" in out
    assert "<failure" in junit.read_text() and "<error" not in junit.read_text()
