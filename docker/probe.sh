#!/usr/bin/env bash
# Smoke probe of a running fake, from the host: health on every interface, an access token with
# the default key of organization 1, one page of documents, then the inspector's page and the
# docs' Swagger UI. Needs bash, curl and openssl.
#   docker/probe.sh [BASE_URL]        (default http://127.0.0.1:4010)
# Used by: container-check --probe 'docker/probe.sh'
set -euo pipefail
BASE=${1:-http://127.0.0.1:4010}
# defaultApiKey(1) from src/domain/fixtures/default-keys.ts: the same on every start.
KEY_ID=375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0
SECRET=fake-secret-1-0799cc6103334c167a65e28e

die() { echo "probe: FAIL: $*" >&2; exit 1; }

health=$(curl -fsS --max-time 5 "$BASE/__admin/health") || die "health: no answer from $BASE"
[[ $health == *'"status":"ok"'* ]] || die "health: unexpected body $health"
echo "probe: health ok at $BASE: $health"

# Listening on all interfaces: the health endpoint answers on this host's other addresses too
# (container-check runs the container on the host network).
port=${BASE##*:}; port=${port%%/*}
for ip in $(hostname -I 2>/dev/null || true); do
  [[ $ip == *.* ]] || continue
  curl -fsS --max-time 5 -o /dev/null "http://$ip:$port/__admin/health" || die "not listening on $ip:$port"
  echo "probe: health ok on $ip:$port"
done

content=probe-$RANDOM
hash=$(printf '%s' "$content" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)
token_body=$(curl -sS --max-time 5 -X POST "$BASE/api/v2/auth/client_token" \
  -H "x-key: $KEY_ID" -H "x-hash: $hash" -H 'content-type: application/json' \
  --data "{\"scope\":\"docs_api\",\"content\":\"$content\"}")
token=$(sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' <<<"$token_body")
[[ -n $token ]] || die "token: $token_body"
echo "probe: token ok (${token:0:8}...)"

list=$(curl -sS --max-time 5 "$BASE/api/v2/documents?resultsPerPage=3&orderBy=label&orderDir=asc" \
  -H "x-access-token: $token")
[[ $list == '{"success":true'* && $list == *'"results":[{'* ]] || die "list: ${list:0:300}"

echo "probe: list ok (${list:0:120}...)"

# The inspector's page and script are in the image (dist/ui), served as HTML and JavaScript.
ui=$(curl -fsS --max-time 5 -H 'accept: text/html' "$BASE/__admin/ui") || die "inspector: no answer at $BASE/__admin/ui"
[[ $ui == '<!doctype html>'* && $ui == *'ui/assets/inspector.js'* ]] || die "inspector: not the page: ${ui:0:200}"
ui_type=$(curl -fsS --max-time 5 -o /dev/null -w '%{content_type}' "$BASE/__admin/ui/assets/inspector.js") \
  || die "inspector: no script at $BASE/__admin/ui/assets/inspector.js"
[[ $ui_type == *javascript* ]] || die "inspector: script served as $ui_type"
docs_type=$(curl -fsS --max-time 5 -o /dev/null -w '%{content_type}' "$BASE/docs/swagger-ui/swagger-ui-bundle.js") \
  || die "docs: no Swagger UI at $BASE/docs/swagger-ui/swagger-ui-bundle.js"
[[ $docs_type == *javascript* ]] || die "docs: Swagger UI served as $docs_type"
echo "probe: inspector and docs ok"
