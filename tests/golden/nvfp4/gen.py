#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NVFP4 golden data, computed with exact rationals (no engine code, no numpy).

Writes into OUTDIR (default: this directory):
  gemm_nvfp4_*.mxgv  NVFP4 x NVFP4 GEMMs in the MXGV format (README.md here): random E2M1
                     codes and UE4M3 scales, D = C + sum(a * sa * b * sb) summed exactly
                     (fractions.Fraction) and rounded once to f32: oracle 4, float64 math.
  quant.bin          NVFP4 quantisation cases (format in README.md): the recipe of
                     Documentation/numerics.rst ("NVFP4"), each step an f32 operation
                     rounded to nearest even, the E4M3/E2M1 roundings done by searching
                     the formats' values exactly.
Deterministic (seeded): python3 tests/golden/nvfp4/gen.py [OUTDIR]
"""
import math
import os
import random
import struct
import sys
from fractions import Fraction as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mxgv  # noqa: E402

FLT_MAX = struct.unpack('<f', struct.pack('<I', 0x7F7FFFFF))[0]


def f32(x):
    """x (a float or a Fraction) rounded once to nearest even f32, as a Python float."""
    if isinstance(x, float):
        return struct.unpack('<f', struct.pack('<f', x))[0]
    if x == 0:
        return 0.0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if F(2) ** e > a:
        e -= 1                                  # now 2^e <= a < 2^(e+1)
    q = F(2) ** (max(e, -126) - 23)             # the quantum of a's binade
    n, r = divmod(a, q)
    if r * 2 > q or (r * 2 == q and n % 2):
        n += 1
    v = n * q
    if v >= F(2) ** 128:
        return math.copysign(math.inf, x)
    return math.copysign(float(v), x)           # exact: v has at most 24 bits


def f32_bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


# ---- minifloat tables: every finite non-negative value of E4M3 and E2M1, by code ----
def e4m3_value(c):
    c &= 0x7F
    if c == 0x7F:
        return None                       # NaN
    e, m = c >> 3, c & 7
    return F(m, 8) * F(2) ** -6 if e == 0 else (1 + F(m, 8)) * F(2) ** (e - 7)


def e2m1_value(c):
    s, c = c >> 3 & 1, c & 7
    e, m = c >> 1, c & 1
    v = F(m, 2) if e == 0 else (1 + F(m, 2)) * F(2) ** (e - 1)
    return -v if s else v


E4M3 = [(c, e4m3_value(c)) for c in range(0x7F)]          # 0x00 .. 0x7E, ascending
E2M1 = [(c, e2m1_value(c)) for c in range(8)]


def round_table(table, x):
    """Nearest value of a non-negative table to |x| (ties: even code), saturating."""
    a = abs(F(x))
    best = None
    for c, v in table:
        d = abs(v - a)
        if best is None or d < best[0] or (d == best[0] and c % 2 == 0):
            best = (d, c)
    return best[1]


def enc_e4m3_pos(x):
    return round_table(E4M3, x)


def enc_e2m1(x):
    c = round_table(E2M1, x)
    return c | (8 if math.copysign(1.0, x) < 0 else 0)


# ---- the quantisation recipe ----
def quantize(src, amax):
    s_enc = 1.0 if amax == 0 else min(f32(F(448 * 6) / F(amax)), FLT_MAX)
    ts = f32(F(1) / F(s_enc))
    scales, codes = [], []
    for b0 in range(0, len(src), 16):
        blk = src[b0:b0 + 16]
        if any(not math.isfinite(x) for x in blk):
            scales.append(0x7F)
            codes += [0] * len(blk)
            continue
        bamax = max(abs(x) for x in blk)
        bs = f32(F(f32(F(bamax) / 6)) * F(s_enc))
        sc = enc_e4m3_pos(bs)
        sv = e4m3_value(sc)
        f = 0.0 if sv == 0 else f32(F(s_enc) / sv)
        scales.append(sc)
        # a zero product keeps x's sign (f >= 0), which Fraction does not carry
        codes += [enc_e2m1(math.copysign(f32(F(x) * F(f)), x)) for x in blk]
    return ts, scales, codes


def pack4(codes):
    out = bytearray((len(codes) + 1) // 2)
    for i, c in enumerate(codes):
        out[i >> 1] |= c << (4 * (i & 1))
    return bytes(out)


def quant_cases(rng):
    cases = []

    def rnd(n, lo, hi):
        return [f32(rng.choice((-1, 1)) * math.exp(rng.uniform(math.log(lo), math.log(hi))))
                for _ in range(n)]

    cases.append(rnd(4096, 1e-3, 1e3))
    cases.append(rnd(256, 0.5, 2.0))
    cases.append(rnd(50, 1e-2, 1e2))                       # a partial last block
    cases.append([0.0] * 16 + rnd(16, 1, 4) + [-0.0] * 16)  # zero blocks, -0
    v = rnd(48, 0.1, 10)
    v[3], v[20] = float('nan'), float('inf')
    cases.append(v)                                         # NaN and Inf blocks
    cases.append(rnd(32, 1e-30, 1e-28))                     # tiny tensor
    cases.append(rnd(32, 1e28, 1e30))                       # huge tensor
    cases.append([f32(x) for x in (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -2.5,
                                  6.0, -6.0, 0.5, 1.0, 3.0, 4.0, 0.1, 7.0)])  # ties
    out = bytearray(b'NVQ1')
    out += struct.pack('<I', len(cases))
    for i, src in enumerate(cases):
        finite = [abs(x) for x in src if math.isfinite(x)]
        amax = max(finite) if finite else 0.0
        if i == 1:
            amax = f32(amax * 4)        # a tensor whose amax lies in another part
        ts, scales, codes = quantize(src, amax)
        out += struct.pack('<Iff', len(src), amax, ts)
        out += b''.join(struct.pack('<f', x) for x in src)
        out += bytes(scales) + pack4(codes)
    return bytes(out)


# ---- GEMMs ----
def gemm_case(rng, m, n, k, acc, scale_codes, nan_scale=False):
    kb = (k + 15) // 16
    a = [[rng.randrange(16) for _ in range(k)] for _ in range(m)]
    b = [[rng.randrange(16) for _ in range(k)] for _ in range(n)]
    sa = [[rng.choice(scale_codes) for _ in range(kb)] for _ in range(m)]
    sb = [[rng.choice(scale_codes) for _ in range(kb)] for _ in range(n)]
    if nan_scale:
        sa[m // 2][0] = 0x7F
        sb[0][kb - 1] = 0xFF            # the sign bit is not read: NaN too
    c = [[f32(rng.uniform(-64, 64)) for _ in range(n)] for _ in range(m)] if acc else None
    d = []
    for i in range(m):
        for j in range(n):
            nan = any(e4m3_value(s) is None for s in sa[i]) or \
                any(e4m3_value(s) is None for s in sb[j])
            if nan:
                d.append(0x7FFFFFFF)
                continue
            s = F(c[i][j]) if acc else F(0)
            for kk in range(k):
                s += (e2m1_value(a[i][kk]) * e4m3_value(sa[i][kk // 16]) *
                      e2m1_value(b[j][kk]) * e4m3_value(sb[j][kk // 16]))
            d.append(f32_bits(f32(s)))
    hdr = mxgv.header('nvfp4', 'nvfp4', 'f32', 'f32', m, n, k, 16,
                      mxgv.FLAG_ACCUM if acc else 0, mxgv.ORACLE_FLOAT64)
    body = b''.join(pack4(r) for r in a) + b''.join(pack4(r) for r in b)
    body += b''.join(bytes(r) for r in sa) + b''.join(bytes(r) for r in sb)
    if acc:
        body += b''.join(struct.pack('<f', x) for r in c for x in r)
    body += b''.join(struct.pack('<I', x) for x in d)
    return hdr + body


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(20261202)
    normal = list(range(0x08, 0x7F))            # UE4M3 normals
    narrow = list(range(0x30, 0x48))             # 2^-1 .. 2^2: sums with few bits
    sub = list(range(0x00, 0x10))                # zero, subnormals, the smallest normals
    cases = {
        'gemm_nvfp4_16x8x64': (16, 8, 64, False, narrow, False),
        'gemm_nvfp4_33x17x96_acc': (33, 17, 96, True, normal, False),
        'gemm_nvfp4_8x24x40_partial': (8, 24, 40, False, normal, False),
        'gemm_nvfp4_12x12x256_subnormal': (12, 12, 256, True, sub, False),
        'gemm_nvfp4_9x7x48_nan': (9, 7, 48, True, normal, True),
    }
    for name, args in cases.items():
        with open(os.path.join(out, name + '.mxgv'), 'wb') as f:
            f.write(gemm_case(rng, *args))
    with open(os.path.join(out, 'quant.bin'), 'wb') as f:
        f.write(quant_cases(rng))


if __name__ == '__main__':
    main()
