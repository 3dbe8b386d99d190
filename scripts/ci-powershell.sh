#!/usr/bin/env bash
# The PowerShell side of CI: installs PowerShell 7.6 (a .NET tool) and Pester 5.7.1 and 6.2.0
# (NuGet packages restored through a scratch project into the NuGet cache), each only when
# missing, then runs the PassportalFake module's Pester tests (clients/powershell/tests) and the
# example suite (examples/powershell) on both Pester versions: against the npm command
# (-UseNode), and, when DOCKER_HOST names a container engine, against the image too. Needs the
# .NET SDK and a built package (npm ci). Any failure fails the run.
# --install-only: install PowerShell and Pester (when missing) and stop; the container suite's
# release test installs the built module with this PowerShell and imports this Pester.
set -euo pipefail
cd "$(dirname "$0")/.."

install_only=false
case "${1:-}" in
  --install-only) install_only=true ;;
  '') ;;
  *)
    echo "usage: bash scripts/ci-powershell.sh [--install-only]" >&2
    exit 2
    ;;
esac

PWSH_VERSION=7.6.9
PESTER_VERSIONS=(5.7.1 6.2.0)
IMAGE=${PASSPORTAL_FAKE_IMAGE:-passportal-docs-fake:local}

if ! command -v dotnet >/dev/null; then
  echo "ci-powershell: the .NET SDK (dotnet) is needed to install PowerShell and Pester from NuGet" >&2
  exit 1
fi

tools=${DOTNET_TOOLS:-$HOME/.dotnet/tools}
pwsh=$tools/pwsh
if [[ ! -x $pwsh ]] || [[ $("$pwsh" -NoProfile -NonInteractive -Command '$PSVersionTable.PSVersion.ToString()') != "$PWSH_VERSION" ]]; then
  echo "ci-powershell: installing PowerShell $PWSH_VERSION (dotnet tool)"
  dotnet tool uninstall --global PowerShell >/dev/null 2>&1 || true
  dotnet tool install --global PowerShell --version "$PWSH_VERSION"
fi

packages=${NUGET_PACKAGES:-$HOME/.nuget/packages}
missing=()
for version in "${PESTER_VERSIONS[@]}"; do
  [[ -f $packages/pester/$version/tools/Pester.psd1 ]] || missing+=("$version")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "ci-powershell: restoring Pester ${missing[*]} from NuGet"
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  versions=$(printf '[%s];' "${missing[@]}")
  cat >"$scratch/pester.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net$(dotnet --version | cut -d. -f1).0</TargetFramework></PropertyGroup>
  <ItemGroup><PackageDownload Include="Pester" Version="${versions%;}" /></ItemGroup>
</Project>
XML
  dotnet restore "$scratch/pester.csproj" >/dev/null
fi
if $install_only; then exit 0; fi

if [[ ! -f dist/start.js ]]; then
  echo "ci-powershell: dist/start.js is missing: run npm ci (it builds the package) first" >&2
  exit 1
fi

results=$PWD/test-results/powershell
mkdir -p "$results"

# One run: the module's tests, then the example suite, on one Pester, against one kind of fake.
run_suites() {
  set -e
  local version=$1 label=$2
  local pester=$packages/pester/$version/tools/Pester.psd1 image_arg=''
  if [[ $label == image ]]; then
    export PASSPORTAL_FAKE_IMAGE=$IMAGE
    image_arg="-Image '$IMAGE'"
  else
    unset PASSPORTAL_FAKE_IMAGE
    # The npm command keeps its CA in TLS_DIR: one folder per run, so two runs never write one CA at once.
    export TLS_DIR=$results/tls-$version
  fi
  echo "ci-powershell: Pester $version, $label: the module's tests"
  "$pwsh" -NoProfile -NonInteractive -File clients/powershell/tests/run-pester.ps1 \
    -PesterPath "$pester" -Path clients/powershell/tests -ResultFile "$results/module-$version-$label.xml"
  echo "ci-powershell: Pester $version, $label: the example suite"
  "$pwsh" -NoProfile -NonInteractive -Command \
    "Import-Module '$pester'; & ./examples/powershell/run-suite.ps1 -OutputDirectory '$results/examples-$version-$label' $image_arg; exit \$LASTEXITCODE"
}

# The two Pester versions run side by side (each with its own fakes on free ports): most of a
# run is waiting for processes to start. Each writes its own log, shown when both are done.
run_both() {
  local label=$1 pids=() failed=0
  for version in "${PESTER_VERSIONS[@]}"; do
    run_suites "$version" "$label" >"$results/$label-$version.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then failed=1; fi
    echo "ci-powershell: ---- Pester ${PESTER_VERSIONS[$i]}, $label ----"
    cat "$results/$label-${PESTER_VERSIONS[$i]}.log"
  done
  return $failed
}

run_both node

if [[ -n ${DOCKER_HOST:-} ]]; then
  if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
    echo "ci-powershell: building the image $IMAGE"
    docker build -q -t "$IMAGE" . >/dev/null
  fi
  run_both image
else
  echo "ci-powershell: DOCKER_HOST is not set: the image runs are left out (the npm command ran)"
fi
echo "ci-powershell: all PowerShell suites passed"
