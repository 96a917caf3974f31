#!/usr/bin/env bash
# What `toolcap run` adds to a short command (issue 33, item 8): `toolcap run -- true`
# against `bash -c true`, N runs of each interleaved (same machine, same moment),
# medians and the difference; then the same for `toolcap run -- bash -c true` (what
# a hook's rewrite runs), `toolcap shell-prefix claude-code --ready` (what Claude
# Code's shell prefix runs before each command) and the release binary's size. A
# short output opens no store: the run's state directory is checked to hold none
# afterwards (only the aside file that counts short outputs).
# Usage: bash benches/run_overhead.sh [N]   (N = 40; builds the release binary first;
#        TOOLCAP_BIN=path to measure another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-40}
if [ -z "${TOOLCAP_BIN:-}" ]; then
  cargo build --release -q
  TOOLCAP_BIN=target/release/toolcap
fi
STATE=$(mktemp -d)
PROJ=$(mktemp -d)
mkdir -p "$PROJ/.git"
trap 'rm -rf "$STATE" "$PROJ"' EXIT
cd "$PROJ"
export XDG_STATE_HOME="$STATE"
BIN=$(cd "$OLDPWD" && realpath "$TOOLCAP_BIN")

# microseconds of one run of "$@" (bash's clock: no process to read it)
once() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  local t1=$EPOCHREALTIME
  echo $(( (${t1/./} - ${t0/./}) ))
}

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m/1000}'; }
fastest() { sort -n | awk 'NR == 1 {printf "%.2f", $1/1000}'; }

measure() {
  local label=$1; shift
  local base=() wrapped=()
  # one warm-up each
  once bash -c true >/dev/null
  once "$BIN" run -- "$@" >/dev/null
  for _ in $(seq "$N"); do
    base+=("$(once bash -c true)")
    wrapped+=("$(once "$BIN" run -- "$@")")
  done
  local b w
  b=$(printf '%s\n' "${base[@]}" | median)
  w=$(printf '%s\n' "${wrapped[@]}" | median)
  printf '%-40s %8s ms   bash -c true %8s ms   over: %s ms\n' \
    "toolcap run -- $label" "$w" "$b" "$(awk -v a="$w" -v b="$b" 'BEGIN {printf "%.2f", a-b}')"
  # the fastest of the alternated runs: what the load stretched least (issue 47)
  b=$(printf '%s\n' "${base[@]}" | fastest)
  w=$(printf '%s\n' "${wrapped[@]}" | fastest)
  printf '%-40s %8s ms   bash -c true %8s ms   over: %s ms (fastest of %s)\n' \
    "toolcap run -- $label" "$w" "$b" "$(awk -v a="$w" -v b="$b" 'BEGIN {printf "%.2f", a-b}')" "$N"
}

echo "median of $N runs each, interleaved ($BIN); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "true" true
measure "bash -c true" bash -c true
# the same, the aside record left out (a store that cannot be used: nothing written)
TOOLCAP_STORE=memory measure "true (no aside record)" true
# CPU time (user + system) of the same runs: what the machine's load does not stretch
python3 - "$BIN" "$N" <<'PY'
import resource, statistics, subprocess, sys
bin, n = sys.argv[1], int(sys.argv[2])
def cpu(cmd):
    out = []
    for _ in range(n):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    return statistics.median(out)
base = cpu(["bash", "-c", "true"])
for label, cmd in [("true", [bin, "run", "--", "true"]),
                   ("bash -c true", [bin, "run", "--", "bash", "-c", "true"]),
                   ("(toolcap --version)", [bin, "--version"]),
                   ("(shell-prefix --ready)", [bin, "shell-prefix", "claude-code", "--ready"])]:
    c = cpu(cmd)
    print(f"cpu: {label:28s} {c:6.2f} ms   bash -c true {base:5.2f} ms   over: {c - base:5.2f} ms")
PY
# (a short output is counted in the aside file beside the store, `results.db-seen`:
# an append, no database)
if [ -n "$(find "$STATE" -name results.db)" ]; then
  echo "a store was made for short outputs: $(ls -R "$STATE/toolcap")" >&2
  exit 1
fi
echo "no store opened for a short output (state directory: $(find "$STATE" -type f -printf '%f ' | sort -u))"
printf 'binary size: %s bytes (%s MB)\n' "$(stat -c %s "$BIN")" \
  "$(awk -v s="$(stat -c %s "$BIN")" 'BEGIN {printf "%.1f", s/1e6}')"
