#!/bin/sh
# HEALTHCHECK, first step. While the container is young (under the 20 s start period), the fake's
# port in the LISTEN state is healthy at once, read from /proc without starting Node: the fake
# listens only once its fixtures, spec and validators are loaded, so a listening port is a fake
# ready to serve. Otherwise (older, or not listening yet) docker/healthcheck.mjs asks
# /__admin/health over HTTP, and paces itself (see there).
port=${PORT:-4010}
if awk -v port="$port" -v young=20 '
  FILENAME == "/proc/uptime" { uptime = $1; next }
  FILENAME == "/proc/1/stat" {
    # Field 22 (start time, in clock ticks of 1/100 s since boot), counted after the command name.
    sub(/.*\) /, ""); split($0, field, " "); age = uptime - field[20] / 100; next
  }
  age >= young { exit 1 }
  FNR > 1 { split($2, local, ":"); if ($4 == "0A" && local[2] == sprintf("%04X", port)) listening = 1 }
  END { exit !(listening && age < young) }
' /proc/uptime /proc/1/stat /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
  exit 0
fi
exec node /app/docker/healthcheck.mjs
