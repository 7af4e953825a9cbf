#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MX quantisation by other people's code, for tests/host/test-libaccel-mx-others.c.

Runs where PyTorch and ml_dtypes are installed (the H200 machine of the device tool:
torch 2.11, ml_dtypes 0.6). For each block of 32 float32 inputs (random blocks of many
magnitudes, and edge blocks: zeros, subnormals, ties, the largest floats, NaN, Inf) and
each MX element type and scale policy it writes the E8M0 scale by the policy's rule
(FLOOR: OCP MX 1.0 section 6.3, floor(log2 amax) - emax_elem; RCEIL: NVIDIA,
ceil(log2(amax / max_elem))), computed exactly with frexp, and the element codes two
libraries give for x / 2^scale clamped to the type's largest finite value (OCP's
saturation; neither library saturates E4M3 itself): ml_dtypes' casts for every type,
PyTorch's for E4M3 and E5M2. Blocks with a NaN or Inf get scale 0xFF and no codes (the
OCP rule: the scale is NaN; what the elements hold is the implementation's).

usage: gen.py OUT   (writes OUT: "block ID X0..X31" lines of f32 hex, then
                     "q TYPE POLICY ID SCALE ML0..ML31 TORCH0..TORCH31" lines of hex,
                     "-" where a library has no such type)
"""
import math, sys
import ml_dtypes, numpy as np, torch

TYPES = {  # name: (ml_dtypes type, torch type or None, max finite, emax_elem)
    "e4m3": (ml_dtypes.float8_e4m3fn, torch.float8_e4m3fn, 448.0, 8),
    "e5m2": (ml_dtypes.float8_e5m2, torch.float8_e5m2, 57344.0, 15),
    "e3m2": (ml_dtypes.float6_e3m2fn, None, 28.0, 4),
    "e2m3": (ml_dtypes.float6_e2m3fn, None, 7.5, 2),
    "e2m1": (ml_dtypes.float4_e2m1fn, None, 6.0, 2),
}


def f32(v):
    return np.float32(v)


def blocks():
    rng = np.random.default_rng(20261201)
    out = []
    for i in range(160):  # random: a normal times 2^k, k across the float range
        k = int(rng.integers(-140, 127)) if i % 4 == 0 else int(rng.integers(-20, 20))
        b = (rng.standard_normal(32) * 2.0 ** k).astype(np.float32)
        if i % 5 == 1:
            b[rng.integers(0, 32, 8)] = 0
        out.append(b)
    edge = [
        [0.0] * 32, [-0.0] * 32,
        [2.0 ** -149] * 16 + [-(2.0 ** -149)] * 16,           # the smallest subnormals
        [3.4028234663852886e38] + [1.0] * 31,                  # FLT_MAX
        [-3.4028234663852886e38] + [2.0 ** -126] * 31,
        [float("nan")] + [1.0] * 31, [float("inf")] + [1.0] * 31,
        [-float("inf")] + [0.0] * 31,
        [448.0, 464.0, 480.0, 240.0, 232.0, 0.5, 0.25] + [1.0] * 25,   # E4M3 ties
        [6.0, 5.0, 3.5, 2.5, 1.25, 0.75, 0.25, 0.125] + [0.0] * 24,      # E2M1 ties
        [7.5, 7.25, 6.75, 0.0625, 0.1875] + [0.0] * 27,                  # E2M3
        [28.0, 30.0, 26.0, 0.0625, 0.09375] + [0.0] * 27,                # E3M2
        [57344.0, 61440.0, 49152.0, 1.0] + [0.0] * 28,                   # E5M2
        [1.0 + 2.0 ** -23 * j for j in range(32)],                       # near 1
        [2.0 ** j for j in range(-16, 16)],                              # powers of 2
        [-(2.0 ** 127)] + [2.0 ** -127] * 31,                            # scale range
    ]
    for e in edge:
        out.append(np.array(e, dtype=np.float32))
    return out


def scale_exp(amax, tmax, emax, policy):
    m, e = math.frexp(amax)  # amax = m * 2^e, 0.5 <= m < 1
    if policy == "floor":
        return e - 1 - emax
    # RCEIL: the smallest s with tmax * 2^s >= amax
    s = e - math.frexp(tmax)[1]
    while math.ldexp(tmax, s) < amax:
        s += 1
    while math.ldexp(tmax, s - 1) >= amax:
        s -= 1
    return s


def main():
    out = open(sys.argv[1], "w")
    bl = blocks()
    out.write("# mx-others: gen.py (torch %s, ml_dtypes %s)\n" % (torch.__version__,
                                                                   ml_dtypes.__version__))
    for i, b in enumerate(bl):
        out.write("block %d %s\n" % (i, " ".join("%08x" % v for v in b.view(np.uint32))))
    for name, (mlt, tt, tmax, emax) in TYPES.items():
        for policy in ("floor", "rceil"):
            for i, b in enumerate(bl):
                if not np.all(np.isfinite(b)):
                    out.write("q %s %s %d ff %s %s\n" % (name, policy, i, " ".join(["-"] * 32),
                                                        " ".join(["-"] * 32)))
                    continue
                amax = float(np.max(np.abs(b.astype(np.float64))))
                s = -127 if amax == 0 else scale_exp(amax, tmax, emax, policy)
                if s > 127:
                    out.write("q %s %s %d ff %s %s\n" % (name, policy, i,
                                                        " ".join(["-"] * 32), " ".join(["-"] * 32)))
                    continue
                s = max(s, -127)
                # x / 2^s exactly in float64, clamped (OCP saturation), then each library's cast
                x = np.clip(b.astype(np.float64) * 2.0 ** -s, -tmax, tmax)
                ml = x.astype(mlt).view(np.uint8)
                if name in ("e3m2", "e2m3"):
                    ml = ml & 0x3f
                if name == "e2m1":
                    ml = ml & 0x0f
                if tt is not None:
                    tc = torch.tensor(x, dtype=torch.float64).to(tt).view(torch.uint8).numpy()
                    ts = " ".join("%02x" % v for v in tc)
                else:
                    ts = " ".join(["-"] * 32)
                out.write("q %s %s %d %02x %s %s\n" % (name, policy, i, s + 127,
                                                      " ".join("%02x" % v for v in ml), ts))
    out.close()


main()
