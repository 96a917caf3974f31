#!/usr/bin/env bash
# The long fuzzing campaign: each target in turn, one process on one core.
# Usage: bash fuzz/campaign.sh SECONDS_PROCESS SECONDS_OUTLINE SECONDS_CONFIG SECONDS_ARGS SECONDS_RECOVERY SECONDS_STREAM
set -u
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
bin=target/x86_64-unknown-linux-gnu/release
i=1
for t in process outline config args recovery stream; do
  secs=${!i}; i=$((i+1))
  mkdir -p corpus/$t artifacts/$t logs
  "$bin/$t" corpus/$t seeds/$t -max_len=2048 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=artifacts/$t/ > logs/$t.log 2>&1
  echo "$t exit $?" >> logs/summary.txt
done
