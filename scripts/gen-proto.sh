#!/usr/bin/env bash
# Generates the TypeScript stubs for proto/ with ts-proto, driven by buf (no protoc needed).
#   scripts/gen-proto.sh [OUT_DIR]     default OUT_DIR: lib/rpc/gen (committed)
# lib/rpc/gen.test.ts runs this into a temp dir and fails when the committed files differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ -x .tools/node/bin/node ] && PATH="$root/.tools/node/bin:$PATH"
out="${1:-lib/rpc/gen}"
case "$out" in /|.|..|"$root"|"$HOME") echo "gen-proto: refusing to clean $out" >&2; exit 2 ;; esac
buf="$root/node_modules/.bin/buf"
plugin="$root/node_modules/.bin/protoc-gen-ts_proto"
opts='"esModuleInterop=true","importSuffix=.js","outputServices=grpc-js","env=node","outputJsonMethods=false","useExactTypes=false"'
template='{"version":"v2","plugins":[{"local":"'"$plugin"'","out":"'"$out"'","opt":['"$opts"']}]}'
rm -rf "$out"
mkdir -p "$out"
"$buf" generate proto --template "$template"
# Format with the repo's settings wherever OUT_DIR is, so a repo-wide `prettier --write` leaves the
# committed stubs unchanged and the freshness test compares like with like.
"$root/node_modules/.bin/prettier" --log-level warn --config "$root/.prettierrc.json" --ignore-path /dev/null --write "$out"
