#!/usr/bin/env bash
# Measures the image against the Docker-API engine in DOCKER_HOST (or the default socket): build
# time (as the cache stands: run `docker builder prune`/remove the image first for a cold build),
# image size, time from `docker run` to the health check reporting healthy, and `docker stop` time.
#   docker/measure.sh [TAG]        (default passportal-docs-fake:measure)
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-passportal-docs-fake:measure}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

t0=$(now); docker build -q -t "$tag" . >/dev/null; t1=$(now)
echo "build: $(secs "$t0" "$t1") s"
size=$(docker image inspect -f '{{.Size}}' "$tag")
echo "image size: $((size / 1000000)) MB ($size bytes)"

name=passportal-measure-$$
t0=$(now)
docker run -d --name "$name" -p 127.0.0.1::4010 "$tag" >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
port_open=''
for _ in $(seq 1 600); do
  if [[ -z $port_open ]]; then
    hostport=$(docker port "$name" 4010 2>/dev/null | head -n1 || true)
    if [[ -n $hostport ]] && curl -fsS "http://$hostport/__admin/health" >/dev/null 2>&1; then
      port_open=$(now); echo "first 200 from /__admin/health: $(secs "$t0" "$port_open") s"
    fi
  fi
  status=$(docker inspect -f '{{.State.Health.Status}}' "$name" 2>/dev/null || true)
  if [[ $status == healthy ]]; then t1=$(now); echo "healthy (docker inspect): $(secs "$t0" "$t1") s"; break; fi
  sleep 0.05
done
t0=$(now); docker stop -t 10 "$name" >/dev/null; t1=$(now)
echo "docker stop -t 10: $(secs "$t0" "$t1") s, exit code $(docker inspect -f '{{.State.ExitCode}}' "$name")"
