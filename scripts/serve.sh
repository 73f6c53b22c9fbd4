#!/usr/bin/env bash
# Serve Ghostlight's 24 browser tools over MCP on stdio, against a headless Chromium the server
# starts itself. Standard output carries MCP messages only: this script's messages and cargo's
# build progress go to standard error. Extra arguments go to `ghostlight mcp` (see --help).
#
# It builds the `ghostlight` command exactly as the README does (`cargo build --release -p
# ghostlight-cli --all-features`), so a build made by hand and this script share their
# artifacts: the first run compiles for a few minutes, showing cargo's progress; later runs
# find the binary current and start serving in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "serve.sh: $*" >&2; }

command -v cargo >/dev/null || { say "cargo is required: https://rustup.rs"; exit 2; }

# Debian names the packages chromium / chromium-driver; Ubuntu chromium-browser /
# chromium-chromedriver.
browser_package=chromium driver_package=chromium-driver
if grep -qsE '^ID=ubuntu' /etc/os-release; then
    browser_package=chromium-browser driver_package=chromium-chromedriver
fi
packages=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || packages+=("$browser_package")
command -v chromedriver >/dev/null || packages+=("$driver_package")
if [ "${#packages[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        say "installing ${packages[*]}"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2
    else
        say "missing ${packages[*]}; install them with:"
        say "  sudo apt-get install ${packages[*]}"
        exit 2
    fi
fi

# Cargo's progress and diagnostics go to standard error; its JSON messages (standard output,
# captured here and never printed) name the binary it built or found current.
say "building the ghostlight command (minutes the first time, a moment once built)"
binary=$(
    cargo build --release -p ghostlight-cli --all-features --message-format=json-render-diagnostics \
        | sed -n 's/.*"executable":"\([^"]*\/ghostlight\)".*/\1/p' | tail -n 1
) || { say "the build failed (cargo's messages are above)"; exit 1; }
[ -n "$binary" ] && [ -x "$binary" ] || { say "cargo reported no ghostlight binary"; exit 1; }
say "serving MCP on stdio: $binary mcp $*"
exec "$binary" mcp "$@"
