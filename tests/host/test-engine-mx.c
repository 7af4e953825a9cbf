// SPDX-License-Identifier: MIT
/*
 * test-engine-mx - MX quantisation of f32 blocks: both scale policies (OCP
 * FLOOR, NVIDIA RCEIL), saturation, all-zero blocks, NaN/Inf blocks,
 * exponent clamping, partial blocks, every element type, dequantisation.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mxe_engine.h"
#include "host_check.h"

#define N 32

static void fill(float *v, int n, float amax)
{
	for (int i = 0; i < n; i++)
		v[i] = amax * ((float)((i * 37) % 64 - 32) / 32.0f);
	v[n / 2] = amax;
}

static uint64_t rs = 88172645463325252ull;

static float frand(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (float)((double)(rs >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

int main(void)
{
	float v[64], back[64];
	uint8_t sc[4], el[64];
	int rc, ok;

	ksft_print_header();

	/* FLOOR: X = 2^(floor(log2 amax) - emax), amax/X in [256, 512) for E4M3 */
	fill(v, N, 1.0f);
	rc = mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(rc == 0 && sc[0] == 127 - 8 && el[N / 2] == 0x78,
	       "floor/e4m3: amax 1 -> scale 2^-8 (0x%02x), 1.0 -> 256 (0x%02x)", sc[0], el[N / 2]);
	fill(v, N, 1.9f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 119 && el[N / 2] == 0x7E, "floor/e4m3: 1.9 * 2^8 = 486 saturates to 448");
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 120 && el[N / 2] == 0x77,
	       "rceil/e4m3: scale 2^ceil(log2(1.9/448)) = 2^-7, 1.9 * 2^7 = 243.2 -> 240 (0x%02x)",
	       el[N / 2]);
	fill(v, N, 448.0f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 127 && el[N / 2] == 0x7E, "rceil/e4m3: amax = 448 exactly -> scale 1");
	v[N / 2] = 448.0001f;
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 128, "rceil/e4m3: amax just above 448 -> scale 2");

	/* edge cases */
	memset(v, 0, sizeof(v));
	v[3] = -0.0f;
	ok = !mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el) && sc[0] == 0 &&
	     el[0] == 0 && el[3] == 0x80;
	ok &= !mxe_mx_quantize(v, N, MXA_DTYPE_E2M1, MXE_MX_SCALE_RCEIL, sc, el) && sc[0] == 0;
	host_check(ok, "all-zero block -> scale 0x00 (2^-127), signed zeros kept");

	fill(v, 64, 3.0f);
	v[5] = NAN;
	v[40] = -INFINITY;
	rc = mxe_mx_quantize(v, 64, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(rc == 0 && sc[0] == 0xFF && sc[1] == 0xFF && el[0] == 0x7F && el[33] == 0x7F,
	       "NaN or Inf in a block -> scale 0xFF, elements NaN");
	fill(v, 64, 3.0f);
	v[40] = INFINITY;
	mxe_mx_quantize(v, 64, MXA_DTYPE_E2M1, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] != 0xFF && sc[1] == 0xFF && el[16] == 0, "Inf poisons only its own block (e2m1 elements 0)");

	fill(v, N, 0x1p-140f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 0 && el[N / 2] == 0, "tiny block: exponent clamped to -127, elements flush to 0");
	fill(v, N, 0x1.8p127f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_FLOOR, sc, el);
	ok = sc[0] == 127 + 119;
	mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(ok && sc[0] == 127 + 119, "huge block (1.5 * 2^127): scale 2^119 under both policies");

	/* FP4 / FP6 / MXINT8 */
	fill(v, N, 7.0f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E2M1, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 127 && (el[N / 4] & 0xF) == 0x7, "floor/e2m1: 7 with scale 1 saturates to 6");
	mxe_mx_quantize(v, N, MXA_DTYPE_E2M1, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 128 && (el[N / 4] & 0xF) == 0x6, "rceil/e2m1: scale 2, 7/2 = 3.5 -> 4 (tie to even)");
	fill(v, N, 20.0f);
	mxe_mx_quantize(v, N, MXA_DTYPE_E3M2, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 127 && el[N / 2] == 0x1D, "floor/e3m2: 20 = 1.25 * 2^4, scale 1");
	mxe_mx_quantize(v, N, MXA_DTYPE_E2M3, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 129 && el[N / 2] == 0x1A, "rceil/e2m3: scale 4, 20/4 = 5");
	fill(v, N, 1.99f);
	mxe_mx_quantize(v, N, MXA_DTYPE_MXINT8, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 127 && el[N / 2] == 127, "floor/mxint8: emax 0, 1.99 * 64 = 127.36 -> 127");
	mxe_mx_quantize(v, N, MXA_DTYPE_MXINT8, MXE_MX_SCALE_RCEIL, sc, el);
	host_check(sc[0] == 128 && el[N / 2] == 64, "rceil/mxint8: scale 2, 1.99/2 * 64 = 63.68 -> 64");

	/* partial last block */
	fill(v, 40, 2.0f);
	v[35] = 100.0f;
	mxe_mx_quantize(v, 40, MXA_DTYPE_E5M2, MXE_MX_SCALE_FLOOR, sc, el);
	host_check(sc[0] == 127 + 1 - 15 && sc[1] == 127 + 6 - 15, "partial last block gets its own scale");

	/* dequantise: the MX value rule; error bounded by half an element ulp */
	{
		static const enum mxa_isa_dtype ts[] = { MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_E3M2,
						     MXA_DTYPE_E2M3, MXA_DTYPE_E2M1, MXA_DTYPE_MXINT8 };
		static const int mbits[] = { 3, 2, 2, 3, 1, 6 };

		for (int t = 0; t < 6; t++) {
			for (int pol = 0; pol < 2; pol++) {
				double worst = 0;

				for (int r = 0; r < 200; r++) {
					float amax = 0;

					for (int i = 0; i < 64; i++) {
						v[i] = frand() * (float)ldexp(1.0, r % 40 - 20);
						if (fabsf(v[i]) > amax)
							amax = fabsf(v[i]);
					}
					mxe_mx_quantize(v, 64, ts[t], pol, sc, el);
					mxe_mx_dequantize(sc, el, 64, ts[t], back);
					for (int i = 0; i < 64; i++) {
						float bm = 0;

						for (int j = i / 32 * 32; j < i / 32 * 32 + 32; j++)
							if (fabsf(v[j]) > bm)
								bm = fabsf(v[j]);
						double e = fabs(back[i] - v[i]) / bm;

						if (e > worst)
							worst = e;
					}
				}
				/* FLOOR saturates E4M3/E2M1 tops: allow a full binade */
				host_check(worst <= ldexp(1.0, -mbits[t]) + (pol == 0 ? 0.25 : 0),
				       "%s/%s: quantise+dequantise error %.3g of block amax",
				       mxe_dtype_name(ts[t]), pol ? "rceil" : "floor", worst);
			}
		}
	}
	sc[0] = 0xFF;
	sc[1] = 127;
	memset(el, 0x22, sizeof(el));
	mxe_mx_dequantize(sc, el, 64, MXA_DTYPE_E4M3, back);
	host_check(isnan(back[0]) && isnan(back[31]) && back[32] == mxe_cvt_e4m3_to_f32(0x22),
	       "dequantise: a NaN scale poisons exactly its block");

	host_check(mxe_mx_quantize(v, N, MXA_DTYPE_BF16, MXE_MX_SCALE_FLOOR, sc, el) == MXE_ENGINE_EINVAL_DTYPE &&
	       mxe_mx_quantize(v, N, MXA_DTYPE_E4M3, 7, sc, el) == MXE_ENGINE_EINVAL_OPTION &&
	       mxe_mx_quantize(NULL, N, MXA_DTYPE_E4M3, 0, sc, el) == MXE_ENGINE_EINVAL,
	       "errors: non-MX element type, unknown policy, NULL");
	return host_check_end();
}
