#!/bin/sh
# Image build helper: `npm ci "$@"`. Only when npm ci refuses because package-lock.json is out of
# sync with package.json (for instance optional platform packages a registry mirror does not
# serve), it says so loudly and falls back to `npm install --no-save`, which keeps every version
# the lock file pins. Any other failure fails the build.
set -eu
log=$(mktemp)
if npm ci "$@" 2>"$log"; then
  cat "$log" >&2
  exit 0
fi
cat "$log" >&2
grep -q 'package.json and package-lock.json or npm-shrinkwrap.json are in sync' "$log" || exit 1
echo 'WARNING: npm ci refused an out-of-sync package-lock.json (see above); installing with' >&2
echo 'WARNING: npm install --no-save instead. Regenerate the lock file with npm install to fix.' >&2
exec npm install --no-save "$@"
