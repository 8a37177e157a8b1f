#!/usr/bin/env bash
# Starts or stops a local Weaviate cluster for development and tests: N nodes
# (default 3) of the weaviate-server that scripts/build-weaviate.sh builds,
# all on loopback ports, anonymous access, no vectorizer module, BM25 by the
# exact WAND (USE_BLOCKMAX_WAND=false: v1.35.2's BlockMax WAND misses recently
# written matches, see weaviate.EnvHint), data and logs outside the repository.
# With --postgres, start and stop also run scripts/dev-postgres.sh, the local
# PostgreSQL.
#
#   scripts/dev-weaviate.sh start [--nodes N] [--postgres]   # prints the nodes' URLs, comma-separated
#   scripts/dev-weaviate.sh stop  [--postgres]
#   scripts/dev-weaviate.sh stop-node I | start-node I       # one node (0-based), for fault tests
#   scripts/dev-weaviate.sh urls
#
# Node i listens for REST on 127.0.0.1:$((PORT+i)) (SITUATE_WEAVIATE_PORT, default
# 18080), gRPC on 15060+i, gossip/data on 17100+2i/17101+2i and Raft on
# 18300+2i/18301+2i; another PORT shifts all of these by PORT-18080, so two
# clusters with bases far enough apart (e.g. 18080 and 28080) do not collide. SITUATE_WEAVIATE_DIR (default ~/.cache/situate/dev-weaviate)
# holds node-i/ (data, weaviate.log, pid). The data survives stop/start;
# remove the directory to start from scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${SITUATE_WEAVIATE_DIR:-$HOME/.cache/situate/dev-weaviate}"
port="${SITUATE_WEAVIATE_PORT:-18080}"
shift_=$((port - 18080)) # every other port moves with the REST base
cmd="${1:-}"; shift || true
nodes="$(cat "$dir/nodes" 2>/dev/null || echo 3)"
pg=0 node=""
while (( $# )); do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --postgres) pg=1; shift ;;
    *) node="$1"; shift ;;
  esac
done
urls() { local i out=""; for ((i = 0; i < nodes; i++)); do out+="${out:+,}http://127.0.0.1:$((port + i))"; done; echo "$out"; }
raft_join() { local i out=""; for ((i = 0; i < nodes; i++)); do out+="${out:+,}node$i:$((shift_ + 18300 + 2 * i))"; done; echo "$out"; }
running() { [[ -f "$dir/node-$1/pid" ]] && kill -0 "$(cat "$dir/node-$1/pid")" 2>/dev/null; }
start_node() {
  local i="$1" bin="$2" d="$dir/node-$1"
  mkdir -p "$d/data"
  if running "$i"; then return; fi
  env PERSISTENCE_DATA_PATH="$d/data" AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
    DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES="" DISABLE_TELEMETRY=true LOG_LEVEL=warning \
    QUERY_DEFAULTS_LIMIT=25 LIMIT_RESOURCES=false GRPC_PORT=$((shift_ + 15060 + i)) USE_BLOCKMAX_WAND=false \
    CLUSTER_HOSTNAME="node$i" CLUSTER_IN_LOCALHOST=true CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_BIND_ADDR=127.0.0.1 \
    CLUSTER_GOSSIP_BIND_PORT=$((shift_ + 17100 + 2 * i)) CLUSTER_DATA_BIND_PORT=$((shift_ + 17101 + 2 * i)) \
    CLUSTER_JOIN="$([[ $i == 0 ]] || echo 127.0.0.1:$((shift_ + 17100)))" \
    RAFT_PORT=$((shift_ + 18300 + 2 * i)) RAFT_INTERNAL_RPC_PORT=$((shift_ + 18301 + 2 * i)) \
    RAFT_JOIN="$(raft_join)" RAFT_BOOTSTRAP_EXPECT="$nodes" \
    setsid "$bin" --scheme http --host 127.0.0.1 --port $((port + i)) \
      --read-timeout=600s --write-timeout=600s >"$d/weaviate.log" 2>&1 </dev/null &
  echo $! >"$d/pid"
}
wait_ready() {
  local i="$1" t
  for ((t = 0; t < 600; t++)); do
    if curl -fsS "http://127.0.0.1:$((port + i))/v1/.well-known/ready" >/dev/null 2>&1; then return 0; fi
    running "$i" || { echo "dev-weaviate: node $i exited; see $dir/node-$i/weaviate.log:" >&2; tail -20 "$dir/node-$i/weaviate.log" >&2; return 1; }
    sleep 0.5
  done
  echo "dev-weaviate: node $i not ready after 300 s; see $dir/node-$i/weaviate.log" >&2; return 1
}
stop_node() {
  local i="$1" pid
  running "$i" || return 0
  pid="$(cat "$dir/node-$i/pid")"
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$dir/node-$i/pid"
}
case "$cmd" in
  start)
    bin="$(scripts/build-weaviate.sh)"
    mkdir -p "$dir" && echo "$nodes" >"$dir/nodes"
    (( pg )) && scripts/dev-postgres.sh start >&2
    # The others join node 0's gossip port: it must listen first.
    start_node 0 "$bin"
    for ((t = 0; t < 600; t++)); do
      curl -fsS "http://127.0.0.1:$port/v1/.well-known/live" >/dev/null 2>&1 && break
      running 0 || { echo "dev-weaviate: node 0 exited; see $dir/node-0/weaviate.log" >&2; exit 1; }
      sleep 0.5
    done
    for ((i = 1; i < nodes; i++)); do start_node "$i" "$bin"; done
    for ((i = 0; i < nodes; i++)); do wait_ready "$i"; done
    urls
    ;;
  stop)
    for ((i = 0; i < nodes; i++)); do stop_node "$i"; done
    (( pg )) && scripts/dev-postgres.sh stop >&2
    true
    ;;
  stop-node) stop_node "${node:?node number}" ;;
  start-node) start_node "${node:?node number}" "$(scripts/build-weaviate.sh)"; wait_ready "$node" ;;
  urls) urls ;;
  *) echo "usage: $0 start [--nodes N] [--postgres] | stop [--postgres] | stop-node I | start-node I | urls" >&2; exit 2 ;;
esac
