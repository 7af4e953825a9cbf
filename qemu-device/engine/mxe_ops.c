// SPDX-License-Identifier: MIT
/*
 * mxe_ops.c - the instruction-level entry points: TMATMULMX (seed 004), the
 * Ampere mma.sync / wmma shapes (seed 001) and Hopper wgmma (seed 003).
 * Each validates its instruction's rules and runs one GEMM whose K-chunk is
 * the instruction's K.
 */
#include <string.h>

#include "mxe_gemm.h"

struct mma_shape {
	uint8_t ta, td;
	uint16_t m, n, k;
};

/* PTX mma.sync shapes (sm_80/sm_89/sm_90) plus the wmma fragment shapes. */
static const struct mma_shape mma_shapes[] = {
	{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 4 },
	{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 8 },
	{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 16, 8 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 8 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 16 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 16, 16 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 32, 8, 16 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 8, 32, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 8, 8, 4 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 8, 8 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 8, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 16, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 32, 8, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 8, 32, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 8, 8, 4 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 16, 8, 8 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 16, 8, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 16, 16, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 32, 8, 16 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 8, 32, 16 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_F32, 16, 8, 32 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_F32, 16, 8, 16 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_F16, 16, 8, 32 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_F16, 16, 8, 16 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_F32, 16, 8, 32 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_F32, 16, 8, 16 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_F16, 16, 8, 32 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_F16, 16, 8, 16 },
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, 8, 8, 4 },
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, 16, 8, 4 },
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, 16, 8, 8 },
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, 16, 8, 16 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 8, 8, 16 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 16 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 32 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 16, 16 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 32, 8, 16 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 8, 32, 16 },
	{ MXA_DTYPE_S4, MXA_DTYPE_S32, 8, 8, 32 },
	{ MXA_DTYPE_S4, MXA_DTYPE_S32, 16, 8, 32 },
	{ MXA_DTYPE_S4, MXA_DTYPE_S32, 16, 8, 64 },
	{ MXA_DTYPE_B1, MXA_DTYPE_S32, 8, 8, 128 },
	{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 128 },
	{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 256 },
};

static int fp8(unsigned t)
{
	return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

int mxe_mma(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct mxe_gemm_desc d;
	size_t i;

	if (!desc)
		return MXE_ENGINE_EINVAL;
	d = *desc;
	/* A and B share a type, except that FP8 may mix e4m3 and e5m2. */
	if (d.type_a != d.type_b && !(fp8(d.type_a) && fp8(d.type_b)))
		return MXE_ENGINE_EINVAL_DTYPE;
	if (d.scale_a || d.scale_b || d.scale_block)
		return MXE_ENGINE_EINVAL_SCALE;
	for (i = 0; i < sizeof(mma_shapes) / sizeof(mma_shapes[0]); i++) {
		const struct mma_shape *s = &mma_shapes[i];

		if (s->ta == d.type_a && s->td == d.type_d)
			if (s->m == d.m && s->n == d.n && s->k == d.k)
				break;
	}
	if (i == sizeof(mma_shapes) / sizeof(mma_shapes[0]))
		return MXE_ENGINE_EINVAL_SHAPE;
	d.k_chunk = 0;
	if (d.accum != MXE_ACCUM_HOPPER)
		d.accum = MXE_ACCUM_EXACT;
	else if (d.type_a == MXA_DTYPE_TF32)
		d.k_chunk = 4;	/* the tensor core's TF32 step is k4 (measured) */
	return mxe_gemm(eng, &d);
}

static int wgmma_n_ok(unsigned ta, unsigned n)
{
	if (n < 8 || n > 256 || n % 8)
		return 0;
	if (ta == MXA_DTYPE_S8 || ta == MXA_DTYPE_B1)
		return n <= 32 || n % 16 == 0;
	return 1;
}

int mxe_wgmma(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct mxe_gemm_desc d;
	unsigned kexp;
	int dt_ok;

	if (!desc)
		return MXE_ENGINE_EINVAL;
	d = *desc;
	switch (d.type_a) {
	case MXA_DTYPE_F16:
		kexp = 16;
		dt_ok = d.type_b == MXA_DTYPE_F16 &&
			(d.type_d == MXA_DTYPE_F32 || d.type_d == MXA_DTYPE_F16);
		break;
	case MXA_DTYPE_BF16:
		kexp = 16;
		dt_ok = d.type_b == MXA_DTYPE_BF16 && d.type_d == MXA_DTYPE_F32;
		break;
	case MXA_DTYPE_TF32:
		kexp = 8;
		dt_ok = d.type_b == MXA_DTYPE_TF32 && d.type_d == MXA_DTYPE_F32;
		break;
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
		kexp = 32;
		dt_ok = fp8(d.type_b) &&
			(d.type_d == MXA_DTYPE_F32 || d.type_d == MXA_DTYPE_F16);
		break;
	case MXA_DTYPE_S8:
		kexp = 32;
		dt_ok = d.type_b == MXA_DTYPE_S8 && d.type_d == MXA_DTYPE_S32;
		break;
	case MXA_DTYPE_B1:
		kexp = 256;
		dt_ok = d.type_b == MXA_DTYPE_B1 && d.type_d == MXA_DTYPE_S32 &&
			!(d.flags & MXE_GEMM_B1_XOR);	/* wgmma b1: .and.popc only */
		break;
	default:
		return MXE_ENGINE_EINVAL_DTYPE;
	}
	if (!dt_ok)
		return MXE_ENGINE_EINVAL_DTYPE;
	if (d.scale_a || d.scale_b || d.scale_block)
		return MXE_ENGINE_EINVAL_SCALE;
	if (d.m != 64 || d.k != kexp || !wgmma_n_ok(d.type_a, d.n))
		return MXE_ENGINE_EINVAL_SHAPE;
	if (d.accum != MXE_ACCUM_HOPPER)
		d.accum = MXE_ACCUM_EXACT;
	d.k_chunk = 0;
	/* one warpgroup's instruction: on the caller's thread (a 64 x 256 x 32 E4M3 one
	 * on the tiled path took 55 us there, 58 us split over two threads) */
	d.nthreads = 1;
	if (d.accum == MXE_ACCUM_EXACT) {
		int rc = mxe_wgmma_exact(&d);

		if (rc <= 0)
			return rc;
	}
	return mxe_gemm(eng, &d);
}

int mxe_tmatmulmx(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct mxe_gemm_desc d;
	int mx_a, mx_b, rc;

	if (!desc)
		return MXE_ENGINE_EINVAL;
	d = *desc;
	if (d.type_d != MXA_DTYPE_F32)
		return MXE_ENGINE_EINVAL_DTYPE;
	if (d.type_a == MXA_DTYPE_NVFP4 || d.type_b == MXA_DTYPE_NVFP4) {
		/* Blackwell's mxf4nvf4 kind: NVFP4 on both sides, UE4M3 scales per 16 */
		d.scale_block = MXA_NVFP4_BLOCK;
		return mxe_gemm(eng, &d);	/* it checks before it expands */
	}
	mx_a = mxe_dtype_is_mx_elem(d.type_a);
	mx_b = mxe_dtype_is_mx_elem(d.type_b);
	if ((!mx_a && d.type_a != MXA_DTYPE_F16 && d.type_a != MXA_DTYPE_BF16) ||
	    (!mx_b && d.type_b != MXA_DTYPE_F16 && d.type_b != MXA_DTYPE_BF16))
		return MXE_ENGINE_EINVAL_DTYPE;
	if (!d.m || !d.n || !d.k)
		return MXE_ENGINE_EINVAL_SHAPE;
	/* The K rules come first: they are what a user gets wrong. */
	if ((fp8(d.type_a) || fp8(d.type_b)) && d.k % 64)
		return MXE_ENGINE_EINVAL_K_ALIGN;
	/* FP16/BF16 operands ignore their scale tile, which may be absent. */
	if (!mx_a)
		d.scale_a = NULL;
	if (!mx_b)
		d.scale_b = NULL;
	d.scale_block = mx_a || mx_b ? MXA_MX_BLOCK : 0;
	rc = mxe_gemm_check(&d);
	if (rc)
		return rc;
	return mxe_gemm(eng, &d);
}
