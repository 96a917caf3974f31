#!/usr/bin/env bash
# Whole-process measurements for README: toolcap against `wc -l` on a 100 MB log
# (a quiet one, and a dense one where a quarter of the lines are ERROR/WARN),
# preview latency on a 1 KB file, and peak memory on a 1 GB stream, without and with
# a store (the full stream spilled into SQLite; then paging and reading it back).
# Usage: bash benches/whole_process.sh   (builds the release binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
BIN=target/release/toolcap
WORK=${TOOLCAP_BENCH_DIR:-/tmp/toolcap-bench}
mkdir -p "$WORK"

# A deterministic 100 MB log: timestamped worker lines, an ERROR every 250,000.
if [ ! -f "$WORK/big.log" ]; then
  python3 - "$WORK/big.log" <<'PY'
import random, sys
random.seed(1)
levels = ["INFO", "DEBUG", "WARN", "INFO", "INFO"]
with open(sys.argv[1], "w") as f:
    n = i = 0
    while n < 100_000_000:
        if i % 250_000 == 0:
            line = f"2026-11-21T10:00:00Z ERROR worker-3 failed batch {i}: connection reset\n"
        else:
            line = (f"2026-11-21T10:{i % 60:02d}:{i % 60:02d}Z {random.choice(levels)} "
                    f"worker-{i % 16} processed batch {i} in {random.randint(1, 999)} ms\n")
        f.write(line)
        n += len(line)
        i += 1
PY
fi
# A deterministic dense 100 MB log: a quarter of the lines ERROR/WARN (issue 15).
[ -f "$WORK/dense.log" ] || python3 benches/dense_log.py "$WORK/dense.log"
head -c 1000 fixtures/read_file/typing.py > "$WORK/small.py"

# median wall time in ms of N runs of a command
median() {
  local n=$1; shift
  for _ in $(seq "$n"); do
    local s e
    s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

cat "$WORK/big.log" > /dev/null  # warm the page cache
# wc -l and toolcap alternately (so drifting load hits both alike), 15 runs each,
# wall time in microseconds
for _ in $(seq 15); do
  s=$(date +%s%N); wc -l "$WORK/big.log" > /dev/null; e=$(date +%s%N)
  echo "wc $(( (e - s) / 1000 ))"
  s=$(date +%s%N); "$BIN" process --tool shell --arg command=run "$WORK/big.log" > /dev/null; e=$(date +%s%N)
  echo "tc $(( (e - s) / 1000 ))"
done > "$WORK/pairs.txt"
med() { awk -v k="$1" '$1 == k {print $2}' "$WORK/pairs.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wc_us=$(med wc); tc_us=$(med tc)
echo "wc -l, 100 MB log:                    $(( wc_us / 1000 )) ms (median of 15)"
echo "toolcap process --tool shell, 100 MB: $(( tc_us / 1000 )) ms (median of 15), ratio $(awk "BEGIN {printf \"%.2f\", $tc_us / $wc_us}")x"
# the same on the dense log
cat "$WORK/dense.log" > /dev/null
for _ in $(seq 15); do
  s=$(date +%s%N); wc -l "$WORK/dense.log" > /dev/null; e=$(date +%s%N)
  echo "wc $(( (e - s) / 1000 ))"
  s=$(date +%s%N); "$BIN" process --tool shell --arg command=run "$WORK/dense.log" > /dev/null; e=$(date +%s%N)
  echo "tc $(( (e - s) / 1000 ))"
done > "$WORK/pairs.txt"
wc_us=$(med wc); tc_us=$(med tc)
echo "wc -l, 100 MB dense log:                    $(( wc_us / 1000 )) ms (median of 15)"
echo "toolcap process --tool shell, dense 100 MB: $(( tc_us / 1000 )) ms (median of 15), ratio $(awk "BEGIN {printf \"%.2f\", $tc_us / $wc_us}")x"
pv_ms=$(median 21 "$BIN" preview "$WORK/small.py")
echo "toolcap preview, 1 KB file:           ${pv_ms} ms (median of 21)"
/usr/bin/time -f "1 GB of 'some log line' from stdin:  %e s, peak RSS %M KB" \
  bash -c "yes 'some log line' | head -c 1G | $BIN process --tool shell - > /dev/null"
/usr/bin/time -f "1 GB of varied log lines from stdin: %e s, peak RSS %M KB" \
  bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do cat '$WORK/big.log'; done | $BIN process --tool shell --arg command=run - > /dev/null"
/usr/bin/time -f "1 GB of dense log lines from stdin: %e s, peak RSS %M KB" \
  bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do cat '$WORK/dense.log'; done | $BIN process --tool shell --arg command=run - > /dev/null"

# With a store: the full 1 GB kept as it is read (chunks of 1 MiB, one transaction
# each), then paged and read back. `yes` output collapses to three lines (not cut), so
# only --save all keeps it; the varied log is cut, and kept by default.
STORE="$WORK/store.db"
rm -f "$STORE" "$STORE-wal" "$STORE-shm"
/usr/bin/time -f "1 GB of 'some log line' from stdin, --store --save all: %e s, peak RSS %M KB" \
  bash -c "yes 'some log line' | head -c 1G | $BIN process --tool shell --id call_1 --save all --store '$STORE' - > /dev/null"
echo "store file: $(stat -c %s "$STORE") bytes"
total=$("$BIN" show call_1 --meta --store "$STORE" | python3 -c 'import json, sys; print(json.load(sys.stdin)["size_chars"])')
cont_ms=$(median 21 "$BIN" continue call_1 --store "$STORE" --offset $((total - 3000)))
echo "toolcap continue at offset $((total - 3000)) of $total: ${cont_ms} ms (median of 21)"
/usr/bin/time -f "toolcap show of the 1 GB result: %e s, peak RSS %M KB" \
  "$BIN" show call_1 --store "$STORE" > /dev/null
if cmp -s <(yes 'some log line' | head -c 1G) <("$BIN" show call_1 --store "$STORE"); then
  echo "stored result: identical to the input"
else
  echo "stored result: DIFFERS from the input"; exit 1
fi
/usr/bin/time -f "1 GB of varied log lines from stdin, --store: %e s, peak RSS %M KB" \
  bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do cat '$WORK/big.log'; done | $BIN process --tool shell --arg command=run --id call_2 --store '$STORE' - > /dev/null"
echo "store file: $(stat -c %s "$STORE") bytes (both results)"
if cmp -s <(for i in 1 2 3 4 5 6 7 8 9 10; do cat "$WORK/big.log"; done) <("$BIN" show call_2 --store "$STORE"); then
  echo "stored result: identical to the input"
else
  echo "stored result: DIFFERS from the input"; exit 1
fi
/usr/bin/time -f "the same with the default --save cut on 'some log line' (spilled, then discarded): %e s, peak RSS %M KB" \
  bash -c "yes 'some log line' | head -c 1G | $BIN process --tool shell --id call_3 --store '$STORE' - > /dev/null"
echo "store file after it: $(stat -c %s "$STORE") bytes"
