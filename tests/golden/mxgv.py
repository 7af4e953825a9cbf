# SPDX-License-Identifier: MIT
"""mxgv.py - the MXGV golden-vector header (tests/golden/h200/README.md "Format") for the
Python scripts that write vectors, the element type codes read from uapi/mxa_isa.h (their
one definition); and, for the scripts run on an H200 with PyTorch, a tensor's raw bytes and
the log of the CUDA kernels each GEMM launched."""
import os
import re
import struct

_UAPI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "uapi",
                     "mxa_isa.h")


def _dtype_codes():
    with open(_UAPI) as f:
        return {name.lower(): int(code)
                for name, code in re.findall(r"\bMXA_DTYPE_(\w+)\s*=\s*(\d+)", f.read())}


DT = _dtype_codes()     # "f32": 0, ..., "e4m3": 5, ..., "nvfp4": 16
KIND_GEMM = 1
FLAG_ACCUM = 1 << 0
FLAG_FAST_ACCUM = 1 << 1
ORACLE_CUBLAS = 3
ORACLE_FLOAT64 = 4


def header(ta, tb, tc, td, m, n, k, scale_block, flags, oracle, kind=KIND_GEMM):
    """The 64-byte header; types by name ("bf16", "e4m3", ...)."""
    return b"MXGV" + struct.pack("<15I", 1, kind, DT[ta], DT[tb], DT[tc], DT[td], m, n, k,
                                 scale_block, flags, oracle, 0, 0, 0)


def raw(t):
    """A torch tensor's bytes, row-major (FP8 one per byte, f16/bf16 two)."""
    import torch
    t = t.contiguous().cpu()
    if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        t = t.view(torch.uint8)
    elif t.dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def write_cublas_gemm(path, ta, tb, td, a, b, c, d, flags=0):
    """A cuBLAS GEMM D = A B^T (+ C) as an oracle-3 MXGV file (C present: ACCUM set)."""
    m, k = a.shape
    flags |= FLAG_ACCUM if c is not None else 0
    with open(path, "wb") as f:
        f.write(header(ta, tb, td, td, m, b.shape[0], k, 0, flags, ORACLE_CUBLAS) +
                raw(a) + raw(b) + (raw(c) if c is not None else b"") + raw(d))


class KernelLog:
    """OUTDIR/kernels.tsv: per case, the CUDA kernels its GEMM launched (torch.profiler),
    from a second call after a warm-up one."""

    def __init__(self, path):
        self.f = open(path, "w")

    def run(self, name, fn):
        import torch
        fn()
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            d = fn()
            torch.cuda.synchronize()
        names = [e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        self.f.write(name + "\t" + " | ".join(names) + "\n")
        return d

    def close(self):
        self.f.close()
