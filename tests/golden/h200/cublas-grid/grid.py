# SPDX-License-Identifier: MIT
"""grid.py - the shapes and inputs of the cuBLAS plan grid (probe.py on the H200, and the
host tools that fit plans to it): the domain of ../cublas-fresh/gen.py, and inputs that are
a hash of each element's index, so any machine rebuilds a case from its shape."""
import numpy as np

MS = [1, 1, 2, 3, 8, 8, 16, 17, 32, 33, 48, 64, 96, 100, 128, 192]   # gen.py draws from these
KS = [16, 24, 96, 160, 256, 500, 1024, 2048, 4096, 8192]
LIMIT = 160 << 10       # bytes of A, B, C and D of one case
TYPES = (("tf32", "f32"), ("f64", "f64"), ("bf16", "f32"), ("f16", "f32"), ("f16", "f16"))
ESZ = {"tf32": 4, "f64": 8, "bf16": 2, "f16": 2, "f32": 4}
DOMAIN = {"m": max(MS), "n": max(MS), "k": max(KS)}


def case_name(ty, td, m, n, k, acc):
    return "gemm_%s_%s_%dx%dx%d%s" % (ty, td, m, n, k, "_c" if acc else "")


def fits(ty, td, m, n, k):
    return (m + n) * k * ESZ[ty] + 2 * m * n * ESZ[td] <= LIMIT


def grid_shapes():
    """Every (type, out type, m, n, k, C present, name) of the domain."""
    out = []
    for ty, td in TYPES:
        for m in sorted(set(MS)):
            for n in sorted(set(MS)):
                for k in KS:
                    for acc in (0, 1):
                        if fits(ty, td, m, n, k):
                            out.append((ty, td, m, n, k, acc, case_name(ty, td, m, n, k, acc)))
    return out


def _mix(x):
    """splitmix64's finaliser on uint64 arrays."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


# significant bits of the values of each type: exact in it (f16, bf16) or full (tf32 inputs
# are f32 values that cuBLAS rounds; f32 and f64 C)
_BITS = {"tf32": 24, "f32": 24, "f64": 53, "f16": 11, "bf16": 8}
_SALT = {"a": 1, "b": 2, "c": 3}


def grid_values(ty, which, rows, cols):
    """float64 values of operand @which ("a", "b", "c") of type @ty, rows x cols: sign,
    @ty's significant bits and an exponent in -3..3, all from a hash of (which, row, col)."""
    with np.errstate(over="ignore"):
        r = np.arange(rows, dtype=np.uint64)[:, None]
        c = np.arange(cols, dtype=np.uint64)[None, :]
        h = _mix((r * np.uint64(1 << 20) + c) * np.uint64(8) + np.uint64(_SALT[which]))
        bits = _BITS[ty]
        frac = (h >> np.uint64(64 - (bits - 1))).astype(np.float64) if bits > 1 else 0.0
        mant = 1.0 + frac / float(1 << (bits - 1))
        exp = ((h & np.uint64(0xFFFF)) % np.uint64(7)).astype(np.int64) - 3
        sign = np.where((h >> np.uint64(16)) & np.uint64(1), -1.0, 1.0)
    return sign * np.ldexp(mant, exp)
