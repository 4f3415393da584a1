#!/usr/bin/env bash
# Reliability harness for time limits (issue 29; fuzz3 D4, D5, D12; issue 22 X1): runs each
# reproducer at several --time-limit values and checks that the command ends
# within 5 % + 0.5 s of the limit plus the time to read its input (measured
# as a cheap engine's run on the same file), with a further SLACK seconds
# (default 1) for a loaded machine. Not a unit test: timings depend on the
# machine. Usage: scripts/limits_harness.sh [SLACK]
set -euo pipefail
SP=${SP:-target/release/serverpick}
SLACK=${1:-1}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

wall() { # wall seconds of a command
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}

check() { # name file engine cheap-engine limits... (engine "plan-cma": plan cma;
           # "ext-stubborn": an external command that ignores SIGTERM, so it
           # ends by SIGKILL one grace second after the limit)
  local name=$1 file=$2 engine=$3 cheap=$4; shift 4
  local read; read=$(wall "$SP" solve "$file" --engine "$cheap")
  for limit in "$@"; do
    local w
    local grace=0
    if [ "$engine" = plan-cma ]; then
      w=$(wall "$SP" plan cma "$file" --time-limit "$limit" --out "$T/plan-$limit")
    elif [ "$engine" = ext-stubborn ]; then
      grace=1
      w=$(wall "$SP" solve "$file" --engine "$cheap" --time-limit "$limit" \
        --engine-cmd "stubborn=sh -c 'trap \"\" TERM; while :; do sleep 0.05; done'")
    else
      w=$(wall "$SP" solve "$file" --engine "$engine" --time-limit "$limit")
    fi
    local max; max=$(echo "1.05 * $limit + 0.5 + $grace + $read + $SLACK" | bc -l)
    local ok=ok
    if (( $(echo "$w > $max" | bc -l) )); then ok=OVER; fail=1; fi
    printf '%-4s %-28s limit %5s s  wall %6.2f s  (read %.2f s, allowed %.2f s)  %s\n' \
      "$name" "$engine" "$limit" "$w" "$read" "$max" "$ok"
  done
}

"$SP" gen spd --servers 100 --clients 3000 --model p2p --factor 1.3 --seed 5 --out "$T" >/dev/null
check D4 "$T/paper-p2p-100s-3000c-f1.3-s5.json" exact alg-m 0.1 1 3
"$SP" gen cma --scenario static --mirrors 20 --clients 100000 --slack 0.05 --seed 3 \
  --out "$T/cma-100k.json" >/dev/null
check D12 "$T/cma-100k.json" exact j-greedy 0.2 2 5
"$SP" gen cma --scenario static --mirrors 100 --clients 20000 --slack 2 --seed 4 \
  --out "$T/cma-plan-big.json" >/dev/null
check D5 "$T/cma-plan-big.json" plan-cma j-greedy 0.01 2 5
# Issue 22: an external command that ignores SIGTERM is gone by limit + grace.
check X1 instances/cma-small.json ext-stubborn j-greedy 0.5 2
if pgrep -f "sleep 0.05" >/dev/null; then echo "X1 a stubborn command survived"; fail=1; fi
exit $fail
