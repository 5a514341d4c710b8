#!/usr/bin/env bash
# preStop hook of the Envoy container (mounted from the envoy-bootstrap ConfigMap; `make run`
# and tests/e2e/test_e2e_envoy.py run this same file). Envoy exits at once on SIGTERM, cutting
# every stream, so before the kubelet sends it:
#   1. POST /healthcheck/fail: /envoy/ready answers 503 (the pod leaves the Service) and Envoy
#      closes connections as their requests end instead of keeping them alive;
#   2. wait while requests are in flight on public_http (a chat turn may take 120 s), at least
#      MIN seconds (new connections may arrive until every proxy saw the endpoint go) and at
#      most MAX (below terminationGracePeriodSeconds).
# Only bash is needed (no curl in the image): the admin is spoken to over /dev/tcp.
set -u
ADMIN_HOST=${ENVOY_ADMIN_HOST:-127.0.0.1}
ADMIN_PORT=${ENVOY_ADMIN_PORT:-9901}
MIN_SECONDS=${ENVOY_DRAIN_MIN_SECONDS:-5}
MAX_SECONDS=${ENVOY_DRAIN_MAX_SECONDS:-135}

admin() {  # METHOD PATH: the response body on stdout; fails when the admin is unreachable
  exec 3<>"/dev/tcp/${ADMIN_HOST}/${ADMIN_PORT}" || return 1
  printf '%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' "$1" "$2" >&3
  local in_body=0 line
  while IFS= read -r line <&3 || [[ -n $line ]]; do
    line=${line%$'\r'}
    if ((in_body)); then printf '%s\n' "$line"; elif [[ -z $line ]]; then in_body=1; fi
  done
  exec 3<&-
}

admin POST /healthcheck/fail >/dev/null || { echo "drain: envoy admin unreachable"; exit 0; }
echo "drain: health check failing, waiting for requests in flight"
waited=0
while ((waited < MAX_SECONDS)); do
  active=$(admin GET '/stats?filter=http\.public_http\.downstream_rq_active' |
    sed -n 's/^http\.public_http\.downstream_rq_active: *//p')
  echo "drain: active=${active:-unknown} after ${waited}s"
  if [[ -z $active ]]; then break; fi
  if ((active == 0 && waited >= MIN_SECONDS)); then break; fi
  sleep 1
  waited=$((waited + 1))
done
echo "drain: done after ${waited}s"
