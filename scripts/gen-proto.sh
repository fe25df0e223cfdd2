#!/usr/bin/env bash
# Generates the TypeScript stubs for proto/ with ts-proto, driven by buf (no protoc needed), and lays each
# package where its code lives:
#   proto/kubevirt/     -> lib/rpc/gen/kubevirt/                     (the handler <-> launcher contract)
#   proto/deviceplugin/ -> lib/handler/device-plugins/gen/           (the kubelet's device plugin API)
#   scripts/gen-proto.sh [ROOT]     default ROOT: the repository (the committed stubs)
# lib/rpc/gen.test.ts runs this into a temp ROOT and fails when the committed files differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ -x .tools/node/bin/node ] && PATH="$root/.tools/node/bin:$PATH"
dest="${1:-$root}"
case "$dest" in /|"$HOME") echo "gen-proto: refusing to write under $dest" >&2; exit 2 ;; esac
buf="$root/node_modules/.bin/buf"
plugin="$root/node_modules/.bin/protoc-gen-ts_proto"
opts='"esModuleInterop=true","importSuffix=.js","outputServices=grpc-js","env=node","outputJsonMethods=false","useExactTypes=false"'
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
template='{"version":"v2","plugins":[{"local":"'"$plugin"'","out":"'"$out"'","opt":['"$opts"']}]}'
"$buf" generate proto --template "$template"
# Format with the repo's settings wherever ROOT is, so a repo-wide `prettier --write` leaves the
# committed stubs unchanged and the freshness test compares like with like.
"$root/node_modules/.bin/prettier" --log-level warn --config "$root/.prettierrc.json" --ignore-path /dev/null --write "$out"
place() {
  rm -rf "${dest:?}/$2"
  mkdir -p "$(dirname "$dest/$2")"
  mv "$out/$1" "$dest/$2"
}
place kubevirt lib/rpc/gen/kubevirt
place deviceplugin lib/handler/device-plugins/gen
rmdir "$out" 2>/dev/null || { echo "gen-proto: proto/ holds a package with no place: $(ls "$out")" >&2; exit 1; }
