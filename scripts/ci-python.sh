#!/usr/bin/env bash
# CI for the Python package (clients/python) and the Python example suite (examples/python).
#
#   1. installs what the machine lacks of Debian's python3, python3-venv, python3-pytest,
#      python3-pytest-xdist, python3-build, python3-httpx, python3-requests, mypy and flake8
#      (apt-get, only the missing ones);
#   2. lints the package and its tests (Debian's flake8, its settings in clients/python/.flake8:
#      the project's line length, 120), type-checks the package (mypy --strict, its settings in
#      pyproject.toml), then builds the wheel and the sdist offline (python3 -m build
#      --no-isolation, Debian's setuptools);
#   3. installs the wheel into a fresh virtual environment that sees Debian's pytest, httpx and
#      xdist (--system-site-packages), and checks what it ships (py.typed, the pytest11 entry point);
#   4. runs the package's own tests and examples/python against the real fake: started by the
#      npm command (node dist/start.js of this checkout, built by npm ci), and, when DOCKER_HOST
#      names a container engine, by the image (FAKE_IMAGE, else passportal-docs-fake:local, which
#      the container suite tags; built here with the docker command if the engine lacks it).
#
# Debian's python3 (/usr/bin/python3) is used by path: a pyenv or venv python3 earlier on PATH
# lacks Debian's packages. A pytest run that collects no test (exit 5) is an error, as any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=/usr/bin/python3

missing=()
for package in python3 python3-venv python3-pytest python3-pytest-xdist python3-build python3-httpx python3-requests mypy flake8; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} > 0)); then
  echo "ci-python: installing Debian's ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ ! -f dist/start.js ]]; then
  echo "ci-python: dist/start.js is missing: run npm ci first (it builds the fake)" >&2
  exit 1
fi

echo "ci-python: linting the package and its tests (flake8)"
(cd clients/python && /usr/bin/flake8 src tests)

echo "ci-python: type-checking the package (mypy --strict)"
(cd clients/python && "$PY" -m mypy src/passportal_fake)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "ci-python: building the wheel and the sdist (offline)"
(cd clients/python && "$PY" -m build --no-isolation --outdir "$work/dist" . >"$work/build.log" 2>&1) || {
  cat "$work/build.log" >&2
  exit 1
}
rm -rf clients/python/build clients/python/src/*.egg-info
wheel=$(ls "$work"/dist/passportal_docs_fake-*-py3-none-any.whl)
ls "$work"/dist/passportal-docs-fake-*.tar.gz >/dev/null

"$PY" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
venv_python="$work/venv/bin/python"
"$venv_python" - <<'PY'
import importlib.metadata as metadata, pathlib, passportal_fake
assert (pathlib.Path(passportal_fake.__file__).parent / "py.typed").is_file(), "py.typed is not in the wheel"
points = [ep for ep in metadata.entry_points(group="pytest11") if ep.value == "passportal_fake.plugin"]
assert points, "the pytest11 entry point is not installed"
assert metadata.requires("passportal-docs-fake") in (None, []) or all("extra ==" in r for r in metadata.requires("passportal-docs-fake")), \
    "the package requires more than the standard library"
print(f"ci-python: installed {metadata.version('passportal-docs-fake')} with its pytest11 entry point and py.typed")
PY

# One pytest run; exit 5 (no tests collected) is an error like any other failure.
run_pytest() {
  local where=$1
  shift
  local status=0
  (cd "$where" && "$venv_python" -m pytest -p no:cacheprovider "$@") || status=$?
  if [[ $status -eq 5 ]]; then
    echo "ci-python: pytest collected no test in $where: that is an error" >&2
  fi
  return "$status"
}

run_suites() {
  local label=$1
  shift
  echo "ci-python: the package's tests and examples/python against the fake ($label)"
  run_pytest clients/python "$@"
  run_pytest examples/python "$@"
}

export PASSPORTAL_FAKE_CHECKOUT=$ROOT
unset PASSPORTAL_FAKE_URL PASSPORTAL_FAKE_IMAGE PASSPORTAL_FAKE_COMMAND
run_suites "npm command: node dist/start.js"

if [[ -n ${DOCKER_HOST:-} ]]; then
  image=${FAKE_IMAGE:-passportal-docs-fake:local}
  # The container suite (npm run test:containers) tags the image it builds passportal-docs-fake:local.
  if ! "$venv_python" -c 'import sys, urllib.parse
from passportal_fake.container import Engine
status, _ = Engine().call("GET", "/images/" + urllib.parse.quote(sys.argv[1], safe="") + "/json")
sys.exit(0 if status == 200 else 1)' "$image"; then
    if ! command -v docker >/dev/null; then
      echo "ci-python: the engine has no image $image and there is no docker command to build it: run npm run test:containers first, or set FAKE_IMAGE" >&2
      exit 1
    fi
    echo "ci-python: building $image"
    docker build -q -t "$image" . >/dev/null
  fi
  run_suites "image $image" "--passportal-image=$image"
else
  echo "ci-python: DOCKER_HOST is not set: the suites ran against the npm command only"
fi
