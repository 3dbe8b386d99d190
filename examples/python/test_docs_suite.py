"""docs/python.md's whole suite, run as written (with this folder's client) against the fake."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GUIDE = HERE.parent.parent / "docs" / "python.md"


def suite_files():
    text = GUIDE.read_text()
    block = text.split("<!-- python-suite:start -->")[1].split("<!-- python-suite:end -->")[0]
    files = {}
    for code in re.findall(r"```python\n(.*?)```", block, re.S):
        name = re.match(r"# (\S+\.py)\n", code).group(1)
        files[name] = code
    return files


def test_the_guides_suite_passes_as_written(passportal_fake, tmp_path):
    files = suite_files()
    assert sorted(files) == ["conftest.py", "test_documents.py"]
    for name, code in files.items():
        (tmp_path / name).write_text(code)
    shutil.copy(HERE / "documents_client.py", tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--passportal-url={passportal_fake.url}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 passed" in run.stdout
    harness = files["conftest.py"].strip().splitlines()
    assert len(harness) <= 12  # all the harness a team writes: one fixture
