#!/usr/bin/env bash
# Builds Weaviate's server (a Go program) from the Go module proxy with
# `go install` and caches the binary outside the repository, keyed by version.
# Prints the path of the binary on stdout. Idempotent: a cached binary is
# reused. The first build compiles for about 4 minutes on 2 cores.
set -euo pipefail
WEAVIATE_VERSION="${WEAVIATE_VERSION:-v1.35.2}"
CACHE="${SITUATE_TOOLS_CACHE:-$HOME/.cache/situate}/weaviate-${WEAVIATE_VERSION}"
BIN="$CACHE/weaviate-server"
if [[ -x "$BIN" ]]; then echo "$BIN"; exit 0; fi
mkdir -p "$CACHE"
# A module-mode install outside any module, so the project's go.mod plays no part.
( cd "$CACHE" && GOBIN="$CACHE.tmp" nice go install \
    "github.com/weaviate/weaviate/cmd/weaviate-server@${WEAVIATE_VERSION}" ) >&2
mv "$CACHE.tmp/weaviate-server" "$BIN" && rmdir "$CACHE.tmp"
echo "$BIN"
