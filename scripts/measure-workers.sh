#!/usr/bin/env bash
# What WORKERS buys on this machine: the compiled gateway with WORKERS=1, then WORKERS=2, in front
# of the sandbox run as its own process, loaded by autocannon. Everything stays on 127.0.0.1;
# each run is bounded by DURATION seconds. Usage: scripts/measure-workers.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-2}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
SANDBOX_PORT=${SANDBOX_PORT:-4710}
GATEWAY_PORT=${GATEWAY_PORT:-4711}
OUT=node_modules/.cache/measure-workers
BODY='{"query":"query Keys { apiKeys(first: 5) { edges { node { id name } } } }"}'

rm -rf "$OUT"
npx tsc -p tsconfig.json --outDir "$OUT"

PORT=$SANDBOX_PORT HOST=127.0.0.1 node "$OUT/sandbox/main.js" >/dev/null &
SANDBOX=$!
trap 'kill -TERM $SANDBOX 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$SANDBOX_PORT/" && break; sleep 0.1; done

for round in $(seq 1 "$ROUNDS"); do
  for workers in 1 2; do
    NODE_ENV=production WORKERS=$workers PORT=$GATEWAY_PORT HOST=127.0.0.1 UPSTREAM_URL="http://127.0.0.1:$SANDBOX_PORT/v2" \
      node "$OUT/main.js" >/dev/null &
    GATEWAY=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$GATEWAY_PORT/health" && break; sleep 0.1; done
    sleep 1
    npx autocannon -c "$CONNECTIONS" -d "$DURATION" -m POST -H content-type=application/json -H "authorization=Bearer sandbox-token" \
      -b "$BODY" --json "http://127.0.0.1:$GATEWAY_PORT/graphql" 2>/dev/null |
      node -e "let s='';process.stdin.on('data',(d)=>(s+=d)).on('end',()=>{const r=JSON.parse(s);console.log('round $round WORKERS=$workers',JSON.stringify({rps:r.requests.average,p50:r.latency.p50,p99:r.latency.p99,non2xx:r.non2xx,errors:r.errors}))})"
    kill -TERM $GATEWAY
    wait $GATEWAY
  done
done
