// SPDX-License-Identifier: MIT
/*
 * mxe_nvfp4.c - NVFP4: E2M1 elements with one UE4M3 scale per 16 along K (and a
 * per-tensor FP32 scale the caller's epilogue applies), as Blackwell runs it.
 *
 * DOC: NVFP4 in the engine
 *
 * A GEMM or TMATMULMX on NVFP4 x NVFP4 expands both operands to BF16 first: an element
 * times its block scale has at most 2 + 4 significant bits and lies within 2^-10 .. 2688,
 * so BF16 holds it exactly, and the BF16 kernels then compute the same products and sums
 * (EXACT, FAST) as kernels on the scaled E2M1 codes would. A NaN scale (UE4M3 0x7F: the
 * sign bit is not read) makes its block NaN, which poisons every output that uses it, as
 * an MX NaN scale does. On a host with AVX2, EXACT and FAST first try a GEMV of their
 * own for up to 32 rows of A (mxe_gemv_nvfp4_run(), mxe_gemv_nvfp4.c: 16-k block sums
 * of the codes as integers, each column read once per row), then the int8 panels'
 * int16 pairs on the codes themselves (mxe_tiled_nvfp4_run(), mxe_tiled.c; FAST on an
 * AVX-512 host only for narrow operations), with the same bits.
 *
 * DOC: NVFP4 quantisation
 *
 * The two-level recipe NVIDIA publishes for NVFP4, every step one f32 operation rounded
 * to nearest even (Documentation/numerics.rst "NVFP4"):
 *	s_enc = 2688 / amax (amax: the tensor's largest finite |x|; 1 when it is 0),
 *	tensor scale = 1 / s_enc,
 *	block scale = UE4M3(RN, saturating)((block amax / 6) * s_enc),
 *	element = E2M1(RN, saturating)(x * (s_enc / block scale)), 0 when the scale is 0;
 * a block holding a NaN or an infinity gets the NaN scale and zero elements.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "mxe_formats.h"
#include "mxe_gemm.h"

#define FP4_MAX 6.0f

/* bf16 bits of every element code (16) times every scale code (128, sign dropped) */
static uint16_t expand_lut[128][16];
static pthread_once_t expand_once = PTHREAD_ONCE_INIT;

static void expand_init(void)
{
	for (unsigned s = 0; s < 128; s++)
		for (unsigned c = 0; c < 16; c++)
			expand_lut[s][c] = s == MXE_UE4M3_NAN ? 0x7FC0 :
				mxe_cvt_f32_to_bf16(mxe_cvt_e2m1_to_f32((uint8_t)c) *
						    mxe_cvt_e4m3_to_f32((uint8_t)s), 0);
}

float mxe_cvt_ue4m3_to_f32(uint8_t v)
{
	return mxe_cvt_e4m3_to_f32(v & MXE_UE4M3_NAN);
}

/* Rows x K of NVFP4 codes and their scales -> rows x K BF16, dense. */
static void expand_rows(const uint8_t *codes, size_t ld, const uint8_t *scales, size_t ld_s,
			size_t rows, size_t k, uint16_t *out)
{
	for (size_t r = 0; r < rows; r++) {
		const uint8_t *row = codes + r * ld, *sc = scales + r * ld_s;
		uint16_t *o = out + r * k;

		for (size_t kk = 0; kk < k; kk++)
			o[kk] = expand_lut[sc[kk / MXA_NVFP4_BLOCK] & MXE_UE4M3_NAN]
					  [(row[kk >> 1] >> ((kk & 1) * 4)) & 0xF];
	}
}

void mxe_nvfp4_row_values(const uint8_t *codes, const uint8_t *scales, size_t k, int neg,
			  double *out)
{
	/* the tables of mxe_cvt_e2m1_to_f32() and mxe_cvt_ue4m3_to_f32(), looked up once */
	const float *e2m1 = mxe_decode_lut(MXA_DTYPE_E2M1), *e4m3 = mxe_decode_lut(MXA_DTYPE_E4M3);

	for (size_t kk = 0; kk < k; kk++) {
		double v = (double)e2m1[(codes[kk / 2] >> (kk & 1) * 4) & 0xF] *
			   e4m3[scales[kk / MXA_NVFP4_BLOCK] & MXE_UE4M3_NAN];

		out[kk] = neg ? -v : v;
	}
}

int mxe_nvfp4_layout(const struct mxe_gemm_desc *in, size_t ld[2], size_t ld_s[2])
{
	size_t row = mxe_dtype_row_bytes(MXA_DTYPE_NVFP4, in->k);
	size_t kb = (in->k + MXA_NVFP4_BLOCK - 1) / MXA_NVFP4_BLOCK;

	ld[0] = in->lda ? in->lda : row;
	ld[1] = in->ldb ? in->ldb : row;
	ld_s[0] = in->ld_scale_a ? in->ld_scale_a : kb;
	ld_s[1] = in->ld_scale_b ? in->ld_scale_b : kb;
	return ld[0] < row || ld[1] < row || ld_s[0] < kb || ld_s[1] < kb ?
	       MXE_ENGINE_EINVAL_LAYOUT : 0;
}

int mxe_nvfp4_expand(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp)
{
	size_t ld[2], ld_s[2], elems;
	uint16_t *a, *b;

	*out = *in;
	if (tmp)
		*tmp = NULL;
	if (in->type_a != MXA_DTYPE_NVFP4 && in->type_b != MXA_DTYPE_NVFP4)
		return 0;
	if (mxa_dtype_nvfp4_unpaired(in->type_a, in->type_b))
		return MXE_ENGINE_EINVAL_DTYPE;
	if (!in->a || !in->b || !in->d)
		return MXE_ENGINE_EINVAL;
	if (!in->m || !in->n || !in->k)
		return MXE_ENGINE_EINVAL_SHAPE;
	if (in->scale_block != MXA_NVFP4_BLOCK || !in->scale_a || !in->scale_b)
		return MXE_ENGINE_EINVAL_SCALE;
	if (in->flags & (MXA_GEMM_F_B_KN | MXA_GEMM_F_A_KM) || in->b_rows)
		return MXE_ENGINE_EINVAL_LAYOUT;	/* 4-bit codes: K contiguous */
	if (in->accum == MXE_ACCUM_HOPPER)
		return MXE_ENGINE_EINVAL_OPTION;	/* no H200 instruction takes NVFP4 */
	if (mxe_nvfp4_layout(in, ld, ld_s))
		return MXE_ENGINE_EINVAL_LAYOUT;
	if (__builtin_mul_overflow((size_t)in->m + in->n, (size_t)in->k, &elems) ||
	    __builtin_mul_overflow(elems, sizeof(uint16_t), &elems))
		return MXE_ENGINE_EOVERFLOW;

	out->type_a = out->type_b = MXA_DTYPE_BF16;
	out->scale_a = out->scale_b = NULL;
	out->scale_block = 0;
	out->ld_scale_a = out->ld_scale_b = 0;
	out->lda = out->ldb = 0;
	if (!tmp)
		return 0;	/* checking only: the BF16 operation stands in */
	a = malloc(elems);
	if (!a)
		return MXE_ENGINE_ENOMEM;
	b = a + (size_t)in->m * in->k;
	pthread_once(&expand_once, expand_init);
	expand_rows(in->a, ld[0], in->scale_a, ld_s[0], in->m, in->k, a);
	expand_rows(in->b, ld[1], in->scale_b, ld_s[1], in->n, in->k, b);
	out->a = a;
	out->b = b;
	*tmp = a;
	return 0;
}

/* ---- quantisation ------------------------------------------------------ */

float mxe_nvfp4_amax(const float *src, size_t n)
{
	float amax = 0.0f;

	for (size_t i = 0; i < n; i++)
		if (isfinite(src[i]) && fabsf(src[i]) > amax)
			amax = fabsf(src[i]);
	return amax;
}

/* s_enc of the recipe: 2688 / amax, at most FLT_MAX; 1 for amax 0. */
static float encode_scale(float amax)
{
	float s;

	if (amax == 0.0f)
		return 1.0f;
	s = (448.0f * FP4_MAX) / amax;
	return s > FLT_MAX ? FLT_MAX : s;
}

int mxe_nvfp4_quantize(const float *src, size_t n, float amax, uint8_t *scales, void *elems,
		       float *tensor_scale)
{
	size_t nb = (n + MXA_NVFP4_BLOCK - 1) / MXA_NVFP4_BLOCK;
	float s_enc;

	if (!(amax >= 0.0f) || isinf(amax))
		return MXE_ENGINE_EINVAL;
	if ((!src || !scales || !elems) && n)
		return MXE_ENGINE_EINVAL;
	s_enc = encode_scale(amax);
	if (tensor_scale)
		*tensor_scale = 1.0f / s_enc;
	for (size_t b = 0; b < nb; b++) {
		size_t i0 = b * MXA_NVFP4_BLOCK;
		size_t i1 = i0 + MXA_NVFP4_BLOCK < n ? i0 + MXA_NVFP4_BLOCK : n;
		float bamax = 0.0f, f, sv;
		int special = 0;
		uint8_t sc;

		for (size_t i = i0; i < i1; i++) {
			if (!isfinite(src[i]))
				special = 1;
			else if (fabsf(src[i]) > bamax)
				bamax = fabsf(src[i]);
		}
		if (special) {
			scales[b] = MXE_UE4M3_NAN;
			for (size_t i = i0; i < i1; i++)
				mxe_row_store_code(MXA_DTYPE_NVFP4, elems, i, 0);
			continue;
		}
		sc = mxe_cvt_f32_to_e4m3((bamax / FP4_MAX) * s_enc, 1);
		sv = mxe_cvt_e4m3_to_f32(sc);
		f = sv == 0.0f ? 0.0f : s_enc / sv;
		scales[b] = sc;
		for (size_t i = i0; i < i1; i++)
			mxe_row_store_code(MXA_DTYPE_NVFP4, elems, i,
					   mxe_cvt_f32_to_e2m1(src[i] * f, 1));
	}
	return 0;
}

int mxe_nvfp4_dequantize(const uint8_t *scales, const void *elems, size_t n,
			 float tensor_scale, float *dst)
{
	if ((!scales || !elems || !dst) && n)
		return MXE_ENGINE_EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint8_t s = scales[i / MXA_NVFP4_BLOCK] & MXE_UE4M3_NAN;
		float v = mxe_cvt_e2m1_to_f32((uint8_t)mxe_row_code(MXA_DTYPE_NVFP4, elems, i));

		dst[i] = s == MXE_UE4M3_NAN ? mxe_bits_f32(MXE_F32_CANON_NAN) :
					  v * mxe_cvt_e4m3_to_f32(s) * tensor_scale;
	}
	return 0;
}
