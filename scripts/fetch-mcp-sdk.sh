#!/bin/sh
# fetch-mcp-sdk.sh installs the official MCP TypeScript SDK (npm
# @modelcontextprotocol/sdk, with its client) into a cache directory OUTSIDE
# the repository and prints that directory. The mcpserver tests run a small
# node script with it, so a client the project did not write talks to
# `situate mcp` (stdio) and to /mcp on `situate serve` (Streamable HTTP).
#
# Usage: scripts/fetch-mcp-sdk.sh [DIR]   (default: $HOME/.cache/situate/mcp-sdk-node)
# Needs node and npm. Idempotent: an existing install of the version is kept.
set -eu
pkg=@modelcontextprotocol/sdk
version=1.32.2
dir=${1:-${HOME:?HOME is not set}/.cache/situate/mcp-sdk-node}
stamp=$dir/.installed-$version
if [ -f "$stamp" ] && [ -d "$dir/node_modules/$pkg" ]; then
	echo "$dir"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "fetch-mcp-sdk: npm is required" >&2; exit 1; }
command -v node >/dev/null 2>&1 || { echo "fetch-mcp-sdk: node is required" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{"name":"situate-mcp-sdk-cache","private":true,"type":"module"}\n' >package.json
npm install --silent --no-audit --no-fund --save-exact "$pkg@$version" >/dev/null
[ -d "node_modules/$pkg" ] || { echo "fetch-mcp-sdk: $pkg@$version did not install into $dir" >&2; exit 1; }
touch "$stamp"
echo "$dir"
