#!/usr/bin/env bash
# Build the fuzz targets of fuzz/ with libFuzzer, AddressSanitizer and the coverage flags that
# `cargo fuzz run` uses, on a stable toolchain (RUSTC_BOOTSTRAP=1 lets it take `-Z` flags), and
# run each for a while. `cargo fuzz run TARGET` works on the same folder where cargo-fuzz is
# installed.
#   scripts/fuzz.sh SECONDS [TARGET...]     each target for SECONDS (default 60), every target
#                                           when none is named
#   XP_FUZZ_KEEP=1 scripts/fuzz.sh ...      new inputs go into fuzz/corpus/TARGET (to commit);
#                                           otherwise into a temporary folder
# A crash leaves its input in fuzz/artifacts/TARGET/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npy kernel_params einsum environment index)
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="$PWD/target/fuzz"
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Zsanitizer=address \
-Cdebug-assertions -Coverflow-checks"
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
cargo build --locked --manifest-path fuzz/Cargo.toml --release --target "$host" "${bins[@]}"
fail=0
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  if [ "${XP_FUZZ_KEEP:-0}" = 1 ]; then
    dirs=("fuzz/corpus/$t")
  else
    scratch="$(mktemp -d)"
    dirs=("$scratch" "fuzz/corpus/$t")
  fi
  echo "=== fuzz $t for ${secs} s"
  log="$(mktemp)"
  rc=0
  "$CARGO_TARGET_DIR/$host/release/$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 "${dirs[@]}" >"$log" 2>&1 || rc=$?
  grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY)|panicked|Test unit written|INFO: seed corpus" "$log" || true
  if [ $rc != 0 ]; then
    tail -40 "$log"
    fail=1
  fi
  rm -f "$log"
  [ "${XP_FUZZ_KEEP:-0}" = 1 ] || rm -rf "$scratch"
done
exit $fail
