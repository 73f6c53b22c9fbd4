#!/usr/bin/env bash
# Regenerate the figures of BENCHMARKS.md: the machine, the in-process core benches (divan),
# the binary's spawn and result-size figures, the load test's printed figures and, when it
# exists, the per-tool WebDriver bench. Prints everything; with an argument, also writes it
# there (e.g. scripts/benchmarks.sh /tmp/figures.md). Figures are printed, never asserted.
# Needs chromium and chromedriver on PATH for everything after the core benches.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/dev/null}"
exec > >(tee "$out") 2>&1

section() { printf '\n## %s\n\n' "$1"; }

section "Machine"
echo '```'
echo "date:     $(date -u +%Y-%m-%dT%H:%MZ)"
echo "nproc:    $(nproc)"
lscpu | grep -E '^(Model name|Architecture|CPU\(s\)|Thread|Core|Socket)' || true
grep -E '^MemTotal' /proc/meminfo || true
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E '^PRETTY_NAME' /etc/os-release || true
uname -sr
rustc --version
(chromium --version || chromium-browser --version || google-chrome --version) 2>/dev/null || echo "no chromium"
chromedriver --version 2>/dev/null || echo "no chromedriver"
echo '```'

section "Core: one invocation per tool over the scripted port (divan)"
cargo bench -q -p ghostlight-core --features testing --bench invoke

section "Binary: spawn to tools/list and result sizes (headless Chromium)"
cargo bench -q -p ghostlight-cli --bench mcp

section "Load: 50 concurrent calls across 5 tabs, then a 1,000-call session"
cargo test -q -p ghostlight-cli --test load -- --nocapture 2>&1 \
  | grep -E '^(spawn|50 concurrent|1,000-call|server VmRSS|test result)' || true

section "WebDriver: one invocation per tool in headless Chromium, next to bare WebDriver"
if [ -f ghostlight-webdriver/benches/tools/main.rs ]; then
  cargo bench -q -p ghostlight-webdriver --bench tools
else
  echo "(not yet available: cargo bench -p ghostlight-webdriver --bench tools)"
fi
