#!/usr/bin/env bash
# Run every cargo-fuzz target for a while (default 60 s each), seeding the corpora from the
# catalog's examples. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs `cargo install cargo-fuzz`; builds on stable with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode)

# Seed corpus for `decode`: one file per tool, first byte = the tool's index, then its example.
seeds=fuzz/corpus/decode
mkdir -p "$seeds"
cargo run -q -p ghostlight-cli -- tools --json | python3 -c '
import json, sys, os
tools = json.load(sys.stdin)
for index, tool in enumerate(tools):
    example = json.dumps(tool["inputSchema"]["examples"][0]).encode()
    with open(os.path.join(sys.argv[1], tool["name"]), "wb") as f:
        f.write(bytes([index]) + example)
' "$seeds"

for target in "${targets[@]}"; do
  echo "== fuzz target $target for ${seconds}s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "fuzz/corpus/$target" -- -max_total_time="$seconds" 2>&1 \
    | grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+==|SUMMARY|artifact)' || true
done
