#!/usr/bin/env bash
# Run what scripts/gpu-build.sh built, on a machine with an NVIDIA GPU. Nothing may skip.
#   scripts/gpu-run.sh            tests, tour, conformance on cuda:0
#   scripts/gpu-run.sh bench      the benchmark beside cupy_side_by_side.py and scripts/bench/cupy_{fft,linalg,sort,sparse,fusion,scipy,signal,ndimage}.py (same run)
#   scripts/gpu-run.sh distributed  several GPUs: the collective tests (every GPU required), the
#                                 example in one process and in two, and the bench beside torch
#   scripts/gpu-run.sh sanitize   compute-sanitizer memcheck over the GPU tests, pool off
set -uo pipefail
cd "$(dirname "$0")/.."
export XP_REQUIRE_GPU=cuda XP_TOUR_BIN="$PWD/gpu-bin/examples/tour" XP_CACHE_DIR="${XP_CACHE_DIR:-/tmp/xp-kernel-cache}"
out="${OUT:-/tmp/xp-gpu-out}"
mkdir -p "$out"
fail=0
case "${1:-tests}" in
tests)
  for t in gpu-bin/*-test-*; do
    [ -f "$t" ] || continue
    case "$t" in *-test-conformance) continue ;; esac
    echo "=== $t"
    "$t" --test-threads=1 2>&1 | tail -25 || fail=1
  done
  echo "=== tour on cuda:0"
  XP_DEVICE=cuda:0 gpu-bin/examples/tour || fail=1
  [ -f gpu-bin/generate.py ] && [ ! -d gpu-bin/cases ] && python3 gpu-bin/generate.py gpu-bin/cases >/dev/null
  if [ -d gpu-bin/cases ]; then
    echo "=== conformance on cuda:0"
    rm -rf "$out/results" && mkdir -p "$out/results"
    gpu-bin/*-test-conformance --cases gpu-bin/cases --device cuda:0 --out "$out/results" | tail -15
    python3 gpu-bin/check.py gpu-bin/cases "$out/results" --show 40 || true
    python3 gpu-bin/check.py gpu-bin/cases "$out/results" \
      --groups binary,broadcast,scalar,unary,cast,reduce,view,shape,index,create,fft,products,linalg,sort,signal,sparse,fft2,scipy_linalg,spatial,stats,routines | tail -3 || fail=1
  fi
  ;;
bench)
  echo "=== cupy"
  OUT="$out" python3 gpu-bin/cupy_side_by_side.py 2>&1 | grep -v "^$" | head -40
  echo "=== cupy (fft)"
  python3 scripts/bench/cupy_fft.py "$out/cupy_fft.json" 2>&1 | grep -v "^$"
  echo "=== cupy (products)"
  python3 scripts/bench/cupy_linalg.py "$out/cupy_linalg.json" 2>&1 | grep -v "^$"
  echo "=== cupy (sort)"
  python3 scripts/bench/cupy_sort.py "$out/cupy_sort.json" 2>&1 | grep -v "^$"
  echo "=== cupy (fusion)"
  python3 scripts/bench/cupy_fusion.py "$out/cupy_fusion.json" 2>&1 | grep -v "^$"
  echo "=== cupy (sparse)"
  python3 scripts/bench/cupy_sparse.py "$out/cupy_sparse.json" 2>&1 | grep -v "^$"
  echo "=== cupy (scipy)"
  python3 scripts/bench/cupy_scipy.py "$out/cupy_scipy.json" 2>&1 | grep -v "^$"
  echo "=== cupy (signal)"
  python3 scripts/bench/cupy_signal.py "$out/cupy_signal.json" 2>&1 | grep -v "^$"
  echo "=== xp"
  XP_DEVICE=cuda:0 gpu-bin/examples/bench "$out/xp_bench.json" || fail=1
  echo "=== cupy (ndimage)"
  python3 scripts/bench/cupy_ndimage.py "$out/cupy_ndimage.json" 2>&1 | grep -v "^$"
  echo "=== xp (ndimage)"
  XP_DEVICE=cuda:0 XP_BENCH_ONLY=ndimage gpu-bin/examples/bench "$out/xp_ndimage.json" || fail=1
  ;;
distributed)
  export NCCL_NVLS_ENABLE=0
  echo "=== distributed tests"
  XP_REQUIRE_GPUS=2 gpu-bin/*-test-distributed --test-threads=1 2>&1 | tail -20 || fail=1
  echo "=== example, one process"
  gpu-bin/examples/distributed || fail=1
  echo "=== example, two processes"
  gpu-bin/examples/distributed --launch 2 || fail=1
  echo "=== torch (distributed)"
  python3 scripts/bench/torch_distributed.py "$out/torch_distributed.json" 2>&1 | grep -v "^$" | tail -5
  echo "=== xp (distributed)"
  XP_BENCH_ONLY=distributed gpu-bin/examples/bench "$out/xp_distributed.json" || fail=1
  ;;
sanitize)
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for t in gpu-bin/*-test-*; do
    [ -f "$t" ] || continue
    case "$t" in *-test-conformance | *-test-devices) continue ;; esac
    echo "=== memcheck $t"
    # API errors are off: the tests provoke failing calls (out of memory, bad launches) on
    # purpose; memcheck then reports memory access errors only.
    XP_MEMORY_POOL=off "$san" --tool memcheck --report-api-errors no --leak-check no --error-exitcode 3 \
      "$t" --test-threads=1 --skip illegal_address >"$out/memcheck.log" 2>&1 || fail=1
    grep -E "^========= (Invalid|Program hit|ERROR SUMMARY)|^=========     at " "$out/memcheck.log" | head -12
    tail -3 "$out/memcheck.log"
  done
  # The array ops themselves: the conformance cases of the reduce and index groups (the most
  # intricate kernels), pool off.
  [ -f gpu-bin/generate.py ] && [ ! -d gpu-bin/cases ] && python3 gpu-bin/generate.py gpu-bin/cases >/dev/null
  for group in reduce index view; do
    echo "=== memcheck conformance, $group"
    XP_MEMORY_POOL=off "$san" --tool memcheck --report-api-errors no --leak-check no --error-exitcode 3 \
      gpu-bin/*-test-conformance --cases gpu-bin/cases --device cuda:0 --out "$out/mc-$group" "$group" \
      >"$out/memcheck-$group.log" 2>&1 || fail=1
    grep -E "^========= (Invalid|ERROR SUMMARY)" "$out/memcheck-$group.log" | head -5
  done
  ;;
esac
exit $fail
