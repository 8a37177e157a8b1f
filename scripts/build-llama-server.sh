#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source bundled in the npm package
# node-llama-cpp (the only llama.cpp source reachable from this machine's
# registries) and caches the binary outside the repository, keyed by version.
# Prints the path of the binary on stdout. Idempotent: a cached binary is reused.
set -euo pipefail
NLC_VERSION="${NLC_VERSION:-3.21.1}"
CACHE="${SITUATE_TOOLS_CACHE:-$HOME/.cache/situate}/llama-server-nlc${NLC_VERSION}"
BIN="$CACHE/llama-server"
if [[ -x "$BIN" ]]; then echo "$BIN"; exit 0; fi
need() { command -v "$1" >/dev/null 2>&1; }
missing=()
need cmake || missing+=(cmake)
need g++ || missing+=(g++)
need npm || missing+=(npm)
if (( ${#missing[@]} )); then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >&2
fi
WORK="$CACHE.build"
rm -rf "$WORK"; mkdir -p "$WORK" "$CACHE"
( cd "$WORK" && npm init -y >/dev/null && npm i -E --omit=optional --ignore-scripts "node-llama-cpp@${NLC_VERSION}" >&2 )
git clone -q "$WORK/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$WORK/llama.cpp" >&2
cd "$WORK/llama.cpp"
cmake -B build -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build build --target llama-server -j"$(nproc)" >&2
cp build/bin/llama-server "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
# Keep the vocabulary-only GGUFs: tests build tiny models on a real vocabulary.
mkdir -p "$CACHE/vocab" && cp models/ggml-vocab-*.gguf "$CACHE/vocab/" 2>/dev/null || true
rm -rf "$WORK"
echo "$BIN"
