// SPDX-License-Identifier: MIT
/*
 * mxe_kernels.c - the portable micro kernels of the FAST path. They define
 * the arithmetic; the AVX2 kernels do the same operations in the same order
 * per output element, so the bits are the same.
 */
#include <math.h>
#include <string.h>

#include "mxe_gemm.h"
#include "mxe_kernels.h"

static float canon_nan(float v)
{
	if (v != v) {
		uint32_t u = 0x7FFFFFFFu;

		memcpy(&v, &u, 4);
	}
	return v;
}

void mxe_kf32_apply(const float *p, const struct mxe_kf32 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		float *d = u->d + i * u->ldd;
		const float *c = u->c ? u->c + i * u->ldc : NULL;

		for (unsigned j = 0; j < u->nr; j++) {
			float v = p[i * MXE_NR + j];

			if (!(u->flags & MXE_KF_FIRST))
				v = d[j] + v;
			else if (u->flags & MXE_KF_C)
				v = c[j] + v;
			if (u->flags & MXE_KF_LAST)
				v = canon_nan(v);
			d[j] = v;
		}
	}
}

void mxe_kern_f32_portable(const float *a, const float *b, size_t k, const struct mxe_kf32 *u)
{
	float p[MXE_MR * MXE_NR], q[MXE_MR * MXE_NR];

	for (size_t k0 = 0; k0 < k; k0 += MXE_FAST_KSUB) {
		size_t k1 = k0 + MXE_FAST_KSUB < k ? k0 + MXE_FAST_KSUB : k;

		for (int i = 0; i < MXE_MR * MXE_NR; i++)
			q[i] = 0.0f;
		for (size_t kk = k0; kk < k1; kk++) {
			const float *bk = b + kk * MXE_NR;

			for (int i = 0; i < MXE_MR; i++)
				for (int j = 0; j < MXE_NR; j++)
					q[i * MXE_NR + j] = fmaf(a[i * MXE_KA_STRIDE + kk], bk[j],
								 q[i * MXE_NR + j]);
		}
		for (int i = 0; i < MXE_MR * MXE_NR; i++)
			p[i] = k0 ? p[i] + q[i] : q[i];
	}
	mxe_kf32_apply(p, u);
}

void mxe_kern_x64_portable(const float *a, const float *b, size_t k, const struct mxe_kx64 *u)
{
	float q[MXE_MR * MXE_NR];

	for (unsigned i = 0; i < u->mr && u->first; i++)
		for (unsigned j = 0; j < u->nr; j++)
			u->s[i * u->lds + j] = 0.0;
	for (size_t k0 = 0; k0 < k; k0 += MXE_FAST_KSUB) {
		for (int i = 0; i < MXE_MR * MXE_NR; i++)
			q[i] = 0.0f;
		for (size_t kk = k0; kk < k0 + MXE_FAST_KSUB; kk++) {
			const float *bk = b + kk * MXE_NR;

			for (int i = 0; i < MXE_MR; i++)
				for (int j = 0; j < MXE_NR; j++)
					q[i * MXE_NR + j] = fmaf(a[i * MXE_KA_STRIDE + kk], bk[j],
								 q[i * MXE_NR + j]);
		}
		for (unsigned i = 0; i < u->mr; i++)
			for (unsigned j = 0; j < u->nr; j++)
				u->s[i * u->lds + j] += (double)q[i * MXE_NR + j];
	}
}

void mxe_kern_d64_portable(const double *a, const double *b0, const double *b1, size_t k,
			   const struct mxe_kd64 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		for (unsigned j = 0; j < u->nr; j++) {
			const double *b = j < MXE_NR ? b0 + j : b1 + (j - MXE_NR);
			double s = u->first ? 0.0 : u->s[i * u->lds + j];
			double c = u->first ? 0.0 : u->c[i * u->lds + j];

			for (size_t k0 = 0; k0 < k; k0 += MXE_FAST_KSUB) {
				double q = 0.0, t, bp;

				for (size_t kk = k0; kk < k0 + MXE_FAST_KSUB; kk++)
					q = fma(a[i * MXE_KA_STRIDE + kk], b[kk * MXE_NR], q);
				t = s + q;	/* TwoSum */
				bp = t - s;
				c += (s - (t - bp)) + (q - bp);
				s = t;
			}
			u->s[i * u->lds + j] = s;
			u->c[i * u->lds + j] = c;
		}
	}
}

void mxe_ks32_apply(const int32_t *p, const struct mxe_ks32 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		for (unsigned j = 0; j < u->nr; j++) {
			int64_t v = p[i * MXE_NR + j];

			if (!(u->flags & MXE_KF_FIRST))
				v += u->s[i * u->lds + j];
			if (u->flags & MXE_KF_LAST) {
				if (u->flags & MXE_KF_C)
					v += u->c[i * u->ldc + j];
				v = mxe_int32_finish(v, !!(u->flags & MXE_KF_SAT));
			}
			u->d[i * u->ldd + j] = (int32_t)v;
		}
	}
}

void mxe_kern_s16_portable(const uint32_t *a, const uint32_t *b, size_t kpairs,
			   const struct mxe_ks32 *u)
{
	int32_t p[MXE_MR * MXE_NR];

	memset(p, 0, sizeof(p));
	for (size_t kp = 0; kp < kpairs; kp++) {
		const uint32_t *ak = a + kp * MXE_MR, *bk = b + kp * MXE_NR;

		for (int i = 0; i < MXE_MR; i++) {
			int32_t a0 = (int16_t)(ak[i] & 0xFFFF), a1 = (int16_t)(ak[i] >> 16);

			for (int j = 0; j < MXE_NR; j++) {
				int32_t b0 = (int16_t)(bk[j] & 0xFFFF), b1 = (int16_t)(bk[j] >> 16);

				p[i * MXE_NR + j] += a0 * b0 + a1 * b1;
			}
		}
	}
	mxe_ks32_apply(p, u);
}

/* Element @k of column @c of a block of int16 pairs ([16][@cols] words). */
static int w16_elem(const uint32_t *blk, unsigned cols, unsigned c, unsigned k)
{
	int16_t x;

	memcpy(&x, (const uint8_t *)(blk + k / 2 * cols + c) + 2 * (k % 2), 2);
	return x;
}

void mxe_w16_under_portable(const struct mxe_kw16u *u, int64_t *t1, int64_t *t2, ptrdiff_t ldt,
			    unsigned mr, unsigned nr)
{
	for (unsigned x = 0; x < u->na; x++) {	/* A's parts against B's windows and parts */
		uint32_t e = u->al[x];
		unsigned k = e >> 16 & 31, r = e >> 21;

		if (r >= mr)
			continue;
		for (unsigned j = 0; j < nr; j++)
			t1[r * ldt + j] += (int64_t)((int16_t)e * w16_elem(u->bh[j / 16], 16, j % 16, k)) *
					   ((int64_t)1 << (u->sa[r] + u->sb[j]));
		mxe_w16_under_both(u, e, t2 + r * ldt, nr);
	}
	for (unsigned h = 0; h < 2; h++) {	/* B's parts against A's windows */
		for (unsigned z = 0; z < u->nb[h]; z++) {
			uint32_t f = u->bl[h][z];
			unsigned k = f >> 16 & 31, j = 16 * h + (f >> 21);

			if (j >= nr)
				continue;
			for (unsigned r = 0; r < mr; r++)
				t1[r * ldt + j] += (int64_t)(w16_elem(u->ah, MXE_MR, r, k) * (int16_t)f) *
						   ((int64_t)1 << (u->sa[r] + u->sb[j]));
		}
	}
}
