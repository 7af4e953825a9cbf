// SPDX-License-Identifier: MIT
/*
 * mxa_kernels.c - the portable micro kernels of the FAST path. They define
 * the arithmetic; the AVX2 kernels do the same operations in the same order
 * per output element, so the bits are the same.
 */
#include <math.h>
#include <string.h>

#include "mxa_gemm.h"
#include "mxa_kernels.h"

static float canon_nan(float v)
{
	if (v != v) {
		uint32_t u = 0x7FFFFFFFu;

		memcpy(&v, &u, 4);
	}
	return v;
}

void mxa_kf32_apply(const float *p, const struct mxa_kf32 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		float *d = u->d + i * u->ldd;
		const float *c = u->c ? u->c + i * u->ldc : NULL;

		for (unsigned j = 0; j < u->nr; j++) {
			float v = p[i * MXA_NR + j];

			if (!(u->flags & MXA_KF_FIRST))
				v = d[j] + v;
			else if (u->flags & MXA_KF_C)
				v = c[j] + v;
			if (u->flags & MXA_KF_LAST)
				v = canon_nan(v);
			d[j] = v;
		}
	}
}

void mxa_kern_f32_portable(const float *a, const float *b, size_t k, const struct mxa_kf32 *u)
{
	float p[MXA_MR * MXA_NR], q[MXA_MR * MXA_NR];

	for (size_t k0 = 0; k0 < k; k0 += MXA_FAST_KSUB) {
		size_t k1 = k0 + MXA_FAST_KSUB < k ? k0 + MXA_FAST_KSUB : k;

		for (int i = 0; i < MXA_MR * MXA_NR; i++)
			q[i] = 0.0f;
		for (size_t kk = k0; kk < k1; kk++) {
			const float *bk = b + kk * MXA_NR;

			for (int i = 0; i < MXA_MR; i++)
				for (int j = 0; j < MXA_NR; j++)
					q[i * MXA_NR + j] = fmaf(a[i * MXA_KA_STRIDE + kk], bk[j],
								 q[i * MXA_NR + j]);
		}
		for (int i = 0; i < MXA_MR * MXA_NR; i++)
			p[i] = k0 ? p[i] + q[i] : q[i];
	}
	mxa_kf32_apply(p, u);
}

void mxa_ks32_apply(const int32_t *p, const struct mxa_ks32 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		for (unsigned j = 0; j < u->nr; j++) {
			int64_t v = p[i * MXA_NR + j];

			if (!(u->flags & MXA_KF_FIRST))
				v += u->s[i * u->lds + j];
			if (u->flags & MXA_KF_LAST) {
				if (u->flags & MXA_KF_C)
					v += u->c[i * u->ldc + j];
				v = mxa_int32_finish(v, !!(u->flags & MXA_KF_SAT));
			}
			u->d[i * u->ldd + j] = (int32_t)v;
		}
	}
}

void mxa_kern_s16_portable(const uint32_t *a, const uint32_t *b, size_t kpairs,
			   const struct mxa_ks32 *u)
{
	int32_t p[MXA_MR * MXA_NR];

	memset(p, 0, sizeof(p));
	for (size_t kp = 0; kp < kpairs; kp++) {
		const uint32_t *ak = a + kp * MXA_MR, *bk = b + kp * MXA_NR;

		for (int i = 0; i < MXA_MR; i++) {
			int32_t a0 = (int16_t)(ak[i] & 0xFFFF), a1 = (int16_t)(ak[i] >> 16);

			for (int j = 0; j < MXA_NR; j++) {
				int32_t b0 = (int16_t)(bk[j] & 0xFFFF), b1 = (int16_t)(bk[j] >> 16);

				p[i * MXA_NR + j] += a0 * b0 + a1 * b1;
			}
		}
	}
	mxa_ks32_apply(p, u);
}
