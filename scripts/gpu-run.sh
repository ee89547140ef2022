#!/usr/bin/env bash
# Run what scripts/gpu-build.sh built, on a machine with an NVIDIA GPU. Nothing may skip.
set -uo pipefail
cd "$(dirname "$0")/.."
export XP_REQUIRE_GPU=cuda XP_TOUR_BIN="$PWD/gpu-bin/examples/tour" XP_CACHE_DIR="${XP_CACHE_DIR:-/tmp/xp-kernel-cache}"
fail=0
for t in gpu-bin/*; do
  [ -f "$t" ] || continue
  echo "=== $t"
  "$t" --test-threads=1 2>&1 | tail -25 || fail=1
done
echo "=== tour on cuda:0"
XP_DEVICE=cuda:0 gpu-bin/examples/tour || fail=1
exit $fail
