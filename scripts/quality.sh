#!/usr/bin/env bash
# The quality gate (bench/quality/README.md): every evaluation set against the
# committed baseline. Arguments go to it: -short (the CI form), -update,
# -changed, -sets REGEXP.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/quality "$@"
