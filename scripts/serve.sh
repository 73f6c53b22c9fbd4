#!/usr/bin/env bash
# Serve Ghostlight's 24 browser tools over MCP on stdio, against a headless Chromium the server
# starts itself. Standard output carries MCP messages only: this script's messages and cargo's
# build output go to standard error. Extra arguments go to `ghostlight mcp` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "serve.sh: $*" >&2; }

command -v cargo >/dev/null || { say "cargo is required: https://rustup.rs"; exit 2; }

packages=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || packages+=(chromium)
command -v chromedriver >/dev/null || packages+=(chromium-driver)
if [ "${#packages[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        say "installing ${packages[*]}"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2
    else
        say "missing ${packages[*]}; install them with:"
        say "  sudo apt-get install chromium chromium-driver"
        exit 2
    fi
fi

say "building (first run takes a few minutes), then serving MCP on stdio"
exec cargo run -q --release -p ghostlight-cli -- mcp "$@"
