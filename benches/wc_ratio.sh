#!/usr/bin/env bash
# `toolcap process --tool shell FILE` against `wc -l FILE`, in one run, both orders:
# N rounds per file, each running both commands (wc first in odd rounds, toolcap
# first in even ones), wall times from bash's $EPOCHREALTIME (no fork timed).
# Prints per file the median and fastest of each, their ratios, and the load
# average before and after.
# Usage: bash benches/wc_ratio.sh BIN N FILE...   (e.g. target/release/toolcap 21
#        /tmp/toolcap-bench/*.log, the files from benches/big_inputs.py)
set -euo pipefail
bin=$1 n=$2
shift 2
us() { local s=${EPOCHREALTIME/./} ; "$@" > /dev/null 2>&1; local e=${EPOCHREALTIME/./}; echo $(( e - s )); }
stat() { sort -n | awk '{a[NR]=$1} END {printf "%.1f %.1f\n", a[int((NR+1)/2)]/1000, a[1]/1000}'; }
for f in "$@"; do
  cat "$f" > /dev/null
  load0=$(cut -d' ' -f1 /proc/loadavg)
  : > /tmp/wc_ratio.$$
  for i in $(seq "$n"); do
    if (( i % 2 )); then
      echo "wc $(us wc -l "$f")" >> /tmp/wc_ratio.$$
      echo "tc $(us "$bin" process --tool shell "$f")" >> /tmp/wc_ratio.$$
    else
      echo "tc $(us "$bin" process --tool shell "$f")" >> /tmp/wc_ratio.$$
      echo "wc $(us wc -l "$f")" >> /tmp/wc_ratio.$$
    fi
  done
  read -r wmed wmin < <(awk '$1 == "wc" {print $2}' /tmp/wc_ratio.$$ | stat)
  read -r tmed tmin < <(awk '$1 == "tc" {print $2}' /tmp/wc_ratio.$$ | stat)
  load1=$(cut -d' ' -f1 /proc/loadavg)
  rm -f /tmp/wc_ratio.$$
  awk -v f="$(basename "$f")" -v wm="$wmed" -v wn="$wmin" -v tm="$tmed" -v tn="$tmin" \
      -v l0="$load0" -v l1="$load1" -v n="$n" 'BEGIN {
    printf "%-14s wc -l %6.1f ms (fastest %6.1f)  toolcap %6.1f ms (fastest %6.1f)  ratio %.2fx (fastest %.2fx)  %d rounds, load %s -> %s\n",
      f, wm, wn, tm, tn, tm / wm, tn / wn, n, l0, l1 }'
done
