"""The memory limit protects host RAM: requests past it are refused before anything is
allocated, and a process out of address space gets ``ResourceExhaustedError``.

Each case runs in a fresh Python process, so that its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) is its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
MB = 1_000_000

#: The requests, each far past a 100 MB limit (name, code making it from small inputs).
OVER_LIMIT = {
    "fill": "tf.fill([23000, 23000], 1)",
    "random_normal": "tf.random_normal([10000, 10000])",
    "random_uniform": "tf.random_uniform([10000, 10000], 0, 1, 'float32', 3)",
    "truncated_normal": "tf.truncated_normal([10000, 10000])",
    "random_gamma": "tf.random_gamma([10000, 10000], 2)",
    "zeros": "tf.zeros([10000, 10000])",
    "ones": "tf.ones([10000, 10000])",
    "eye": "tf.eye(10000)",
    "range": "tf.range(0, 100_000_000)",
    "linspace": "tf.linspace(0, 1, 100_000_000)",
    "tile": "tf.tile(tf.ones([100, 100]), [100, 100])",
    "one_hot": "tf.one_hot(tf.zeros([10000], 'int32'), 10000)",
    "pad": "tf.pad(tf.ones([10, 10]), [[0, 10000], [0, 10000]])",
    "mat_mul": "tf.mat_mul(tf.ones([10000, 1]), tf.ones([1, 10000]))",
    "add_broadcast": "tf.add(tf.ones([10000, 1]), tf.ones([1, 10000]))",
    "broadcast_to": "tf.broadcast_to(tf.ones([1]), [10000, 10000])",
    "outer_product_einsum": "tf.einsum('i,j->ij', tf.ones([10000]), tf.ones([10000]))",
    "concat": "tf.concat([tf.ones([5000, 1000])] * 20, 0)",
    "gather": "tf.gather(tf.ones([1, 10000]), tf.zeros([10000], 'int32'))",
    "resize_bilinear": "tf.image.resize_bilinear(tf.ones([1, 2, 2, 1]), [10000, 10000])",
    "conv2d_transpose": (
        "tf.conv2d_transpose(tf.ones([1, 100, 100, 1]), tf.ones([1, 1, 1, 1]), "
        "[1, 10000, 10000, 1], 100, 'valid')"
    ),
    "multinomial": "tf.multinomial(tf.zeros([2]), 100_000_000, 1)",
}


def run_script(body: str, timeout: int = 300) -> dict:
    """Runs ``body`` (which fills the dict ``result``) in a fresh interpreter."""
    script = (
        "import json, resource, sys\n"
        "import tidytensor as tf\n"
        "def peak_bytes():\n"
        "    # VmHWM: the peak resident set since the last reset_peak() (ru_maxrss would\n"
        "    # keep the import's peak, and under memory pressure pages reclaimed before a\n"
        "    # baseline reading would count as growth)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "def reset_peak():\n"
        "    try:\n"
        "        with open('/proc/self/clear_refs', 'w') as f:\n"
        "            f.write('5')\n"
        "    except OSError:\n"
        "        pass\n"
        "result = {}\n" + textwrap.dedent(body) + "\nprint(json.dumps(result))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_requests_past_the_limit_are_refused_before_any_host_memory_is_taken():
    cases = json.dumps(OVER_LIMIT)
    result = run_script(
        f"""
        cases = json.loads({cases!r})
        # Warm up every code path (imports, kernel tables) on small shapes first.
        small = tf.tidy(lambda: [tf.ones([2, 2]).add(1).sum() for _ in range(2)])
        tf.config.set_memory_limit(100_000_000)
        reset_peak()
        base = peak_bytes()
        refused, peaks = {{}}, {{}}
        for name, code in cases.items():
            before = tf.memory()
            try:
                tf.tidy(lambda: eval(code))
                refused[name] = "allowed"
            except tf.ResourceExhaustedError as exc:
                refused[name] = str(exc)
            except Exception as exc:
                refused[name] = type(exc).__name__ + ": " + str(exc)
            assert tf.memory() == before, (name, before, tf.memory())
            peaks[name] = peak_bytes() - base
        result["refused"], result["peaks"] = refused, peaks
        """
    )
    for name, message in result["refused"].items():
        assert message.startswith("Allocating "), (name, message)
        assert "Nothing was allocated" in message, (name, message)
        assert "past the limit of 100000000 bytes" in message, (name, message)
    # Nothing was allocated: the resident set grew by import/cache noise only.
    assert max(result["peaks"].values()) < 30 * MB, result["peaks"]


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_random_values_fitting_the_limit_keep_host_memory_near_the_limit():
    """80 MB of random float32 values under a 100 MB limit: drawn in chunks into the
    tensor's buffer, not as a float64 array (twice as large) plus a float32 copy."""
    result = run_script(
        """
        import os
        tf.tidy(lambda: [tf.random_normal([4]), tf.random_uniform([4]), tf.truncated_normal([4])])
        tf.config.set_memory_limit(100_000_000)
        reset_peak()
        resident = peak_bytes()
        for make in (tf.random_normal, tf.random_uniform, tf.truncated_normal):
            x = make([5000, 4000])  # 80 MB
            assert x.shape == [5000, 4000]
            assert float(tf.max(x).array_sync()) > 0.99  # the values were drawn
            x.dispose()
        result["growth"] = peak_bytes() - resident
        """
    )
    # The 80 MB tensor and little else (before: a float64 draw, a float32 copy of it, then
    # a copy of the buffer into the tensor, about 320 MB).
    assert result["growth"] < 100 * MB + 20 * MB, result["growth"]


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc are Linux's")
def test_out_of_address_space_is_resource_exhausted_and_changes_nothing():
    result = run_script(
        """
        import os
        x = tf.ones([100, 100])
        tf.tidy(lambda: [tf.tile(x, [2, 2]), tf.zeros([3]), tf.random_normal([3])])
        vm = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (vm + 300_000_000, resource.RLIM_INFINITY))
        errors = {}
        for name, make in {
            "tile": lambda: tf.tile(x, [200, 200]),  # 1.6 GB, made by a kernel
            "zeros": lambda: tf.zeros([20000, 20000]),  # made on the host
            "random_normal": lambda: tf.random_normal([20000, 20000]),
        }.items():
            before = tf.memory()
            try:
                make()
                errors[name] = "no error"
            except Exception as exc:
                errors[name] = [type(exc).__name__, str(exc)]
            assert tf.memory() == before, name
        result["errors"] = errors
        """
    )
    for name, (cls, message) in result["errors"].items():
        assert cls == "ResourceExhaustedError", (name, cls, message)
        assert f"'{name}' ran out of host memory" in message, message
    assert "a float32 tensor of shape [20000, 20000]" in result["errors"]["tile"][1]
