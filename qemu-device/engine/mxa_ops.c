// SPDX-License-Identifier: MIT
/*
 * mxa_ops.c - the instruction-level entry points: TMATMULMX (seed 004), the
 * Ampere mma.sync / wmma shapes (seed 001) and Hopper wgmma (seed 003).
 * Each validates its instruction's rules and runs one GEMM whose K-chunk is
 * the instruction's K.
 */
#include <string.h>

#include "mxa_gemm.h"

struct mma_shape {
	uint8_t ta, td;
	uint16_t m, n, k;
};

/* PTX mma.sync shapes (sm_80/sm_89/sm_90) plus the wmma fragment shapes. */
static const struct mma_shape mma_shapes[] = {
	{ MXA_DT_TF32, MXA_DT_F32, 16, 8, 4 },
	{ MXA_DT_TF32, MXA_DT_F32, 16, 8, 8 },
	{ MXA_DT_TF32, MXA_DT_F32, 16, 16, 8 },
	{ MXA_DT_BF16, MXA_DT_F32, 16, 8, 8 },
	{ MXA_DT_BF16, MXA_DT_F32, 16, 8, 16 },
	{ MXA_DT_BF16, MXA_DT_F32, 16, 16, 16 },
	{ MXA_DT_BF16, MXA_DT_F32, 32, 8, 16 },
	{ MXA_DT_BF16, MXA_DT_F32, 8, 32, 16 },
	{ MXA_DT_F16, MXA_DT_F32, 8, 8, 4 },
	{ MXA_DT_F16, MXA_DT_F32, 16, 8, 8 },
	{ MXA_DT_F16, MXA_DT_F32, 16, 8, 16 },
	{ MXA_DT_F16, MXA_DT_F32, 16, 16, 16 },
	{ MXA_DT_F16, MXA_DT_F32, 32, 8, 16 },
	{ MXA_DT_F16, MXA_DT_F32, 8, 32, 16 },
	{ MXA_DT_F16, MXA_DT_F16, 8, 8, 4 },
	{ MXA_DT_F16, MXA_DT_F16, 16, 8, 8 },
	{ MXA_DT_F16, MXA_DT_F16, 16, 8, 16 },
	{ MXA_DT_F16, MXA_DT_F16, 16, 16, 16 },
	{ MXA_DT_F16, MXA_DT_F16, 32, 8, 16 },
	{ MXA_DT_F16, MXA_DT_F16, 8, 32, 16 },
	{ MXA_DT_E4M3, MXA_DT_F32, 16, 8, 32 },
	{ MXA_DT_E4M3, MXA_DT_F32, 16, 8, 16 },
	{ MXA_DT_E4M3, MXA_DT_F16, 16, 8, 32 },
	{ MXA_DT_E4M3, MXA_DT_F16, 16, 8, 16 },
	{ MXA_DT_E5M2, MXA_DT_F32, 16, 8, 32 },
	{ MXA_DT_E5M2, MXA_DT_F32, 16, 8, 16 },
	{ MXA_DT_E5M2, MXA_DT_F16, 16, 8, 32 },
	{ MXA_DT_E5M2, MXA_DT_F16, 16, 8, 16 },
	{ MXA_DT_F64, MXA_DT_F64, 8, 8, 4 },
	{ MXA_DT_F64, MXA_DT_F64, 16, 8, 4 },
	{ MXA_DT_F64, MXA_DT_F64, 16, 8, 8 },
	{ MXA_DT_F64, MXA_DT_F64, 16, 8, 16 },
	{ MXA_DT_S8, MXA_DT_S32, 8, 8, 16 },
	{ MXA_DT_S8, MXA_DT_S32, 16, 8, 16 },
	{ MXA_DT_S8, MXA_DT_S32, 16, 8, 32 },
	{ MXA_DT_S8, MXA_DT_S32, 16, 16, 16 },
	{ MXA_DT_S8, MXA_DT_S32, 32, 8, 16 },
	{ MXA_DT_S8, MXA_DT_S32, 8, 32, 16 },
	{ MXA_DT_S4, MXA_DT_S32, 8, 8, 32 },
	{ MXA_DT_S4, MXA_DT_S32, 16, 8, 32 },
	{ MXA_DT_S4, MXA_DT_S32, 16, 8, 64 },
	{ MXA_DT_B1, MXA_DT_S32, 8, 8, 128 },
	{ MXA_DT_B1, MXA_DT_S32, 16, 8, 128 },
	{ MXA_DT_B1, MXA_DT_S32, 16, 8, 256 },
};

static int fp8(unsigned t)
{
	return t == MXA_DT_E4M3 || t == MXA_DT_E5M2;
}

int mxa_mma(struct mxa_engine *eng, const struct mxa_gemm_desc *desc)
{
	struct mxa_gemm_desc d;
	size_t i;

	if (!desc)
		return MXA_ENGINE_EINVAL;
	d = *desc;
	/* A and B share a type, except that FP8 may mix e4m3 and e5m2. */
	if (d.type_a != d.type_b && !(fp8(d.type_a) && fp8(d.type_b)))
		return MXA_ENGINE_EINVAL_DTYPE;
	if (d.scale_a || d.scale_b || d.scale_block)
		return MXA_ENGINE_EINVAL_SCALE;
	for (i = 0; i < sizeof(mma_shapes) / sizeof(mma_shapes[0]); i++) {
		const struct mma_shape *s = &mma_shapes[i];

		if (s->ta == d.type_a && s->td == d.type_d)
			if (s->m == d.m && s->n == d.n && s->k == d.k)
				break;
	}
	if (i == sizeof(mma_shapes) / sizeof(mma_shapes[0]))
		return MXA_ENGINE_EINVAL_SHAPE;
	d.k_chunk = 0;
	if (d.accum != MXA_ACCUM_HOPPER)
		d.accum = MXA_ACCUM_EXACT;
	else if (d.type_a == MXA_DT_TF32)
		d.k_chunk = 4;	/* the tensor core's TF32 step is k4 (measured) */
	return mxa_gemm(eng, &d);
}

static int wgmma_n_ok(unsigned ta, unsigned n)
{
	if (n < 8 || n > 256 || n % 8)
		return 0;
	if (ta == MXA_DT_S8 || ta == MXA_DT_B1)
		return n <= 32 || n % 16 == 0;
	return 1;
}

int mxa_wgmma(struct mxa_engine *eng, const struct mxa_gemm_desc *desc)
{
	struct mxa_gemm_desc d;
	unsigned kexp;
	int dt_ok;

	if (!desc)
		return MXA_ENGINE_EINVAL;
	d = *desc;
	switch (d.type_a) {
	case MXA_DT_F16:
		kexp = 16;
		dt_ok = d.type_b == MXA_DT_F16 &&
			(d.type_d == MXA_DT_F32 || d.type_d == MXA_DT_F16);
		break;
	case MXA_DT_BF16:
		kexp = 16;
		dt_ok = d.type_b == MXA_DT_BF16 && d.type_d == MXA_DT_F32;
		break;
	case MXA_DT_TF32:
		kexp = 8;
		dt_ok = d.type_b == MXA_DT_TF32 && d.type_d == MXA_DT_F32;
		break;
	case MXA_DT_E4M3:
	case MXA_DT_E5M2:
		kexp = 32;
		dt_ok = fp8(d.type_b) &&
			(d.type_d == MXA_DT_F32 || d.type_d == MXA_DT_F16);
		break;
	case MXA_DT_S8:
		kexp = 32;
		dt_ok = d.type_b == MXA_DT_S8 && d.type_d == MXA_DT_S32;
		break;
	case MXA_DT_B1:
		kexp = 256;
		dt_ok = d.type_b == MXA_DT_B1 && d.type_d == MXA_DT_S32 &&
			!(d.flags & MXA_GEMM_B1_XOR);	/* wgmma b1: .and.popc only */
		break;
	default:
		return MXA_ENGINE_EINVAL_DTYPE;
	}
	if (!dt_ok)
		return MXA_ENGINE_EINVAL_DTYPE;
	if (d.scale_a || d.scale_b || d.scale_block)
		return MXA_ENGINE_EINVAL_SCALE;
	if (d.m != 64 || d.k != kexp || !wgmma_n_ok(d.type_a, d.n))
		return MXA_ENGINE_EINVAL_SHAPE;
	if (d.accum != MXA_ACCUM_HOPPER)
		d.accum = MXA_ACCUM_EXACT;
	d.k_chunk = 0;
	return mxa_gemm(eng, &d);
}

int mxa_tmatmulmx(struct mxa_engine *eng, const struct mxa_gemm_desc *desc)
{
	struct mxa_gemm_desc d;
	int mx_a, mx_b, rc;

	if (!desc)
		return MXA_ENGINE_EINVAL;
	d = *desc;
	if (d.type_d != MXA_DT_F32)
		return MXA_ENGINE_EINVAL_DTYPE;
	mx_a = mxa_dtype_is_mx_elem(d.type_a);
	mx_b = mxa_dtype_is_mx_elem(d.type_b);
	if ((!mx_a && d.type_a != MXA_DT_F16 && d.type_a != MXA_DT_BF16) ||
	    (!mx_b && d.type_b != MXA_DT_F16 && d.type_b != MXA_DT_BF16))
		return MXA_ENGINE_EINVAL_DTYPE;
	if (!d.m || !d.n || !d.k)
		return MXA_ENGINE_EINVAL_SHAPE;
	/* The K rules come first: they are what a user gets wrong. */
	if ((fp8(d.type_a) || fp8(d.type_b)) && d.k % 64)
		return MXA_ENGINE_EINVAL_K_ALIGN;
	if ((mx_a || mx_b) && d.k % MXA_MX_BLOCK)
		return MXA_ENGINE_EINVAL_SCALE;
	/* FP16/BF16 operands ignore their scale tile, which may be absent. */
	if (!mx_a)
		d.scale_a = NULL;
	if (!mx_b)
		d.scale_b = NULL;
	d.scale_block = mx_a || mx_b ? MXA_MX_BLOCK : 0;
	rc = mxa_gemm_check(&d);
	if (rc)
		return rc;
	return mxa_gemm(eng, &d);
}
