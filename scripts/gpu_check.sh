#!/usr/bin/env bash
# The device check of the 'cupy' backend (issue 17), for a machine with an NVIDIA GPU, CuPy,
# PyTorch CUDA, pytest and pytest-xdist. Run from the repository root, package not installed:
#
#     bash scripts/gpu_check.sh            # logs into $OUT (default /tmp/gpu_out)
#
# Sections, each under its own time limit, none stopping the others (about 5 minutes in all):
#   1. the memory-setting and backend tests on the real device (tests/test_gpu_device.py);
#   2. the TF.js golden op, optimizer and memory tests with TIDYTENSOR_BACKEND=cupy
#      (skips: tests/backend_skips/cupy.txt), in 8 processes;
#   3. benchmarks/run.py --backend cupy: tidytensor beside raw CuPy and PyTorch CUDA.
# Logs (at most 8 files): 00_env.txt, 01_device_tests.txt, 02_suite.txt,
# 02_suite_outcomes.txt, 03_bench.txt, 03_bench.json, summary.txt.
set -u
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export CUPY_CACHE_DIR="$PWD/.cupy_cache"   # compiled kernels kept between runs (git-ignored)
export TIDYTENSOR_GPU="${TIDYTENSOR_GPU:-1}"  # register 'cupy' even if /dev/nvidia* is not visible
OUT="${OUT:-/tmp/gpu_out}"
mkdir -p "$OUT"
PY="${PYTHON:-python}"
DEVICE_LIMIT="${DEVICE_LIMIT:-70}"
SUITE_LIMIT="${SUITE_LIMIT:-120}"
BENCH_LIMIT="${BENCH_LIMIT:-95}"
WORKERS="${WORKERS:-8}"
START=$(date +%s)

section() { echo "== $1 ($(( $(date +%s) - START )) s)"; }

# 0. What the machine is.
section "environment"
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -4
  timeout 60 "$PY" - <<'EOF' 2>&1
import sys, numpy
print("python", sys.version.split()[0], "numpy", numpy.__version__)
try:
    import cupy
    print("cupy", cupy.__version__, "devices", cupy.cuda.runtime.getDeviceCount(),
          "cuda runtime", cupy.cuda.runtime.runtimeGetVersion())
except Exception as exc:
    print("cupy: NOT USABLE:", type(exc).__name__, exc)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.cuda.is_available())
except Exception as exc:
    print("torch: NOT USABLE:", type(exc).__name__, exc)
import tidytensor as tf
print("tidytensor backends", tf.engine().registered_backends(), "default", (tf.ready(), tf.get_backend()))
EOF
} > "$OUT/00_env.txt" 2>&1
cat "$OUT/00_env.txt"

PYTEST=("$PY" -m pytest -p tidytensor.pytest_plugin -p no:cacheprovider -rfEs --no-header)  # -q: pyproject

# 1. The backend and its memory settings on the real device.
section "device tests (limit ${DEVICE_LIMIT}s)"
timeout -k 5 "$DEVICE_LIMIT" "${PYTEST[@]}" tests/test_gpu_device.py > "$OUT/01_device_tests.txt" 2>&1
echo "exit $?" >> "$OUT/01_device_tests.txt"
tail -3 "$OUT/01_device_tests.txt"

# 2. The golden op / optimizer / memory tests on the GPU backend.
section "suite on cupy (limit ${SUITE_LIMIT}s, ${WORKERS} processes)"
: > "$OUT/02_suite_outcomes.txt"
TIDYTENSOR_BACKEND=cupy TIDYTENSOR_OUTCOME_LOG="$OUT/02_suite_outcomes.txt" \
  timeout -k 10 "$SUITE_LIMIT" "${PYTEST[@]}" -n "$WORKERS" \
  tests/ops tests/optimizers tests/test_memory.py tests/test_engine.py \
  tests/test_memory_programs.py tests/test_memory_cases.py tests/test_seeds.py \
  > "$OUT/02_suite.txt" 2>&1
echo "exit $?" >> "$OUT/02_suite.txt"
tail -3 "$OUT/02_suite.txt"

# 3. Benchmarks beside raw CuPy and PyTorch CUDA.
section "benchmarks (limit ${BENCH_LIMIT}s)"
timeout -k 5 "$BENCH_LIMIT" "$PY" benchmarks/run.py --backend cupy --worker-timeout 50 \
  --json "$OUT/03_bench.json" > "$OUT/03_bench.txt" 2>&1
echo "exit $?" >> "$OUT/03_bench.txt"

# Summary.
section "summary"
{
  echo "gpu_check summary ($(( $(date +%s) - START )) s): $(sed -n 2p "$OUT/00_env.txt")"
  echo "-- device tests: $(grep -E ' in [0-9.]+s' "$OUT/01_device_tests.txt" | tail -1)"
  grep -E '^(FAILED|ERROR)' "$OUT/01_device_tests.txt" | head -20
  echo "-- suite on cupy: $(grep -E ' in [0-9.]+s' "$OUT/02_suite.txt" | tail -1)"
  echo "   outcomes logged: $(cut -d' ' -f1 "$OUT/02_suite_outcomes.txt" | sort | uniq -c | tr '\n' ' ')"
  echo "   failures by test file:"
  grep -E '^(failed|error) ' "$OUT/02_suite_outcomes.txt" | sed -E 's/^[a-z]+ ([^:]+)::.*/\1/' \
    | sort | uniq -c | sort -rn | head -25
  echo "-- benchmarks (tidytensor on cupy | raw CuPy | PyTorch CUDA):"
  grep -vE '^exit ' "$OUT/03_bench.txt" | tail -16
  grep -E '^exit ' "$OUT/03_bench.txt"
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
exit 0
