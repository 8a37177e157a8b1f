#!/usr/bin/env bash
# Starts or stops a local PostgreSQL for development, from Debian's
# postgresql package, on a loopback port, with its data and socket in one
# directory outside the repository. As root the server runs as nobody
# (PostgreSQL refuses root).
#
#   scripts/dev-postgres.sh start   # prints the connection URL
#   scripts/dev-postgres.sh stop
#   scripts/dev-postgres.sh url
#
# SITUATE_PG_DIR (default ~/.cache/situate/dev-postgres) and SITUATE_PG_PORT
# (default 55432) choose the place. The data survives stop/start; remove the
# directory to start from scratch.
set -euo pipefail
dir="${SITUATE_PG_DIR:-$HOME/.cache/situate/dev-postgres}"
port="${SITUATE_PG_PORT:-55432}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
  echo "dev-postgres: no PostgreSQL in /usr/lib/postgresql/*/bin; install it: apt-get install postgresql" >&2
  exit 1
fi
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    setpriv --reuid=nobody --regid=nogroup --init-groups "$@"
  else
    "$@"
  fi
}
url="postgres://postgres@127.0.0.1:$port/situate?sslmode=disable"
case "${1:-}" in
  start)
    mkdir -p "$dir"
    [[ "$(id -u)" == 0 ]] && chown nobody:nogroup "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
      as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      echo "dev-postgres: already running" >&2
    else
      as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
        -o "-k $dir -h 127.0.0.1 -p $port" start >/dev/null \
        || { tail -20 "$dir/postgres.log" >&2; exit 1; }
    fi
    "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'situate'" | grep -q 1 \
      || "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres situate
    echo "$url"
    ;;
  stop)
    if [[ -f "$dir/data/PG_VERSION" ]] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    ;;
  url)
    echo "$url"
    ;;
  *)
    echo "usage: $0 start|stop|url" >&2
    exit 2
    ;;
esac
