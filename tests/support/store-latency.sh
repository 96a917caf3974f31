#!/usr/bin/env bash
# Whole-process latency of `toolcap continue` against one store: stores a 2.3 MB
# multi-byte result (2,300,000+ bytes; more than two chunks of either backend),
# then runs `continue` RUNS times at offsets spread over it and prints the median
# and the 90th percentile in milliseconds.
#
#   tests/support/store-latency.sh STORE [RUNS]     STORE: a SQLite file or a postgres:// URL
#
# Uses target/debug/toolcap unless TOOLCAP_BIN is set.
set -euo pipefail
store=${1:?usage: tests/support/store-latency.sh STORE [RUNS]}
runs=${2:-50}
bin=${TOOLCAP_BIN:-target/debug/toolcap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/big.txt" <<'PY'
import sys
out, i = [], 0
size = 0
while size < 2_300_000:
    i += 1
    line = f"{i:07} aé€😀 ½ → ∑ ü\t\"q\" \\ \r\n"
    out.append(line)
    size += len(line.encode())
open(sys.argv[1], "w", encoding="utf-8", newline="").write("".join(out))
PY
"$bin" process --tool bash --id call_latency --save all --store "$store" "$tmp/big.txt" >/dev/null
total=$(python3 -c 'import sys;print(len(open(sys.argv[1],encoding="utf-8",newline="").read()))' "$tmp/big.txt")
for i in $(seq 1 "$runs"); do
  offset=$(( (total / runs) * (i - 1) ))
  start=$(date +%s%N)
  "$bin" continue call_latency --offset "$offset" --store "$store" >/dev/null
  end=$(date +%s%N)
  echo $(( (end - start) / 1000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "continue: %d runs, median %.1f ms, p90 %.1f ms\n", NR, a[int(NR/2)+1]/1000, a[int(NR*0.9)]/1000}'
