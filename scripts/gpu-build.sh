#!/usr/bin/env bash
# Build the GPU test binaries and the tour (release, stripped) into gpu-bin/, to be copied to
# a machine with an NVIDIA GPU and run there with scripts/gpu-run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out=gpu-bin
rm -rf "$out" && mkdir -p "$out"
features="cpu,cuda"
msgs=$(cargo test --release --no-run --message-format=json -p xp-backend-cuda -p xp --no-default-features --features "$features" 2>/dev/null)
echo "$msgs" | python3 -c '
import json, sys, shutil, os
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        name = m["target"]["name"]
        kind = m["target"]["kind"][0]
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        dst = os.path.join(sys.argv[1], pkg + "-" + kind + "-" + name)
        shutil.copy(m["executable"], dst)
        print(dst)
' "$out"
cargo build --release --no-default-features --features "$features" --example tour --example bench --example mandelbrot --example sparse --example blur --example ndimage --example distributed
mkdir -p "$out/examples" && cp target/release/examples/tour target/release/examples/bench target/release/examples/mandelbrot target/release/examples/sparse target/release/examples/blur target/release/examples/ndimage target/release/examples/distributed "$out/examples/"
# The public conformance cases and the anchor scripts, to run beside the binaries.
shared="$(cd .. && pwd)/shared"
if [ -d "$shared/conformance" ]; then
  # The cases are made on the GPU machine (it has NumPy and SciPy): the generator is smaller.
  cp "$shared/conformance/generate.py" "$shared/conformance/check.py" "$shared/bench/cupy_side_by_side.py" "$out/"
fi
# Unit-test binaries of the library itself and the compile checks (which need no GPU) stay here.
rm -f "$out"/*-lib-* "$out"/*-test-compile
strip "$out"/*-test-* "$out"/examples/* 2>/dev/null || true
du -sh "$out"
