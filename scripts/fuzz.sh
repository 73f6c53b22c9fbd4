#!/usr/bin/env bash
# Run every cargo-fuzz target for a while (default 60 s each), seeding the corpora first.
# Usage: scripts/fuzz.sh [--smoke | --seed] [SECONDS] [TARGET...]
#   --smoke  10 s per target (the last phase of scripts/test.sh)
#   --seed   only (re)write the generated seeds under fuzz/seeds/ and exit
# Needs `cargo install cargo-fuzz`; builds on stable with RUSTC_BOOTSTRAP=1.
#
# Seeds live in fuzz/seeds/TARGET (committed; the workspace test `tests/tests/fuzz.rs` replays
# them and fuzz/regressions/TARGET through the same harness functions). libFuzzer writes what it
# finds to fuzz/corpus/TARGET (ignored by git). A crash is saved under fuzz/artifacts/TARGET:
# copy it to fuzz/regressions/TARGET, fix, and commit both.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=run
case "${1:-}" in
  --smoke) mode=smoke; shift ;;
  --seed) mode=seed; shift ;;
esac
if [ "$mode" = smoke ]; then seconds=10; else seconds="${1:-60}"; shift || true; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode flow_ref hosts config mcp)

# Generated seeds: the catalog's examples (committed; a smoke run uses them as they are).
if [ "$mode" != smoke ]; then
#   decode: one file per tool, first byte = the tool's index, then its example.
#   mcp: one file per tool, "NAME<TAB>EXAMPLE", plus every example in one session.
mkdir -p fuzz/seeds/decode fuzz/seeds/mcp
cargo run -q -p ghostlight-cli -- tools --json | python3 -c '
import json, sys, os
tools = json.load(sys.stdin)
decode, mcp = sys.argv[1], sys.argv[2]
session = []
for index, tool in enumerate(tools):
    example = json.dumps(tool["inputSchema"]["examples"][0], separators=(",", ":"))
    with open(os.path.join(decode, tool["name"]), "wb") as f:
        f.write(bytes([index]) + example.encode())
    line = tool["name"] + "\t" + example
    session.append(line)
    with open(os.path.join(mcp, tool["name"]), "w") as f:
        f.write(line)
with open(os.path.join(mcp, "session"), "w") as f:
    f.write("\n".join(session[:8]))
' fuzz/seeds/decode fuzz/seeds/mcp
fi
[ "$mode" = seed ] && exit 0

for target in "${targets[@]}"; do
  echo "== fuzz target $target for ${seconds}s"
  mkdir -p "fuzz/corpus/$target" "fuzz/seeds/$target"
  dirs=("fuzz/corpus/$target" "fuzz/seeds/$target")
  [ -d "fuzz/regressions/$target" ] && dirs+=("fuzz/regressions/$target")
  # -rss_limit_mb / -timeout: a slow or huge input is a finding too.
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "${dirs[@]}" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
    | grep -E '^(#[0-9]+ +(INITED|DONE)|Done|==[0-9]+==|SUMMARY|artifact|stat::number_of_executed_units|stat::peak_rss_mb)' \
    || { echo "fuzz target $target failed"; exit 1; }
done
