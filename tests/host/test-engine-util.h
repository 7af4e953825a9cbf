/* SPDX-License-Identifier: MIT */
/*
 * test-engine-util.h - helpers shared by the engine host tests: random
 * operands of every type, and an independent, deliberately naive reference
 * GEMM with the EXACT numerics (per element, per chunk: exact sum with the
 * running value, one rounding).
 */
#ifndef MXA_TEST_ENGINE_UTIL_H
#define MXA_TEST_ENGINE_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_engine.h"
#include "mxe_formats.h"
#include "mxe_xacc.h"

static uint64_t tu_rs = 0x2545F4914F6CDD1Dull;

static uint64_t tu_rand(void)
{
	tu_rs ^= tu_rs << 13;
	tu_rs ^= tu_rs >> 7;
	tu_rs ^= tu_rs << 17;
	return tu_rs;
}

/* A random finite code of type @t (NaN/Inf codes avoided). */
static uint64_t tu_rand_code(enum mxa_isa_dtype t)
{
	uint64_t r = tu_rand();

	switch (t) {
	case MXA_DTYPE_F32:
	case MXA_DTYPE_TF32:	/* exponent within 2^-20 .. 2^20 */
		return (r & 0x807FFFFFu) | ((uint64_t)(107 + (r >> 40) % 40) << 23);
	case MXA_DTYPE_F64:
		return (r & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1003 + (r >> 56) % 40) << 52);
	case MXA_DTYPE_F16:
		return (r & 0x83FF) | ((uint64_t)(5 + (r >> 20) % 20) << 10);
	case MXA_DTYPE_BF16:
		return (r & 0x807F) | ((uint64_t)(107 + (r >> 20) % 40) << 7);
	case MXA_DTYPE_E4M3:
		r &= 0xFF;
		return (r & 0x7F) == 0x7F ? r - 1 : r;
	case MXA_DTYPE_E5M2:
		r &= 0xFF;
		return ((r >> 2) & 0x1F) == 0x1F ? r - 4 : r;
	case MXA_DTYPE_E8M0:
		return 112 + r % 30;
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
		return r & 0x3F;
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_S4:
		return r & 0xF;
	case MXA_DTYPE_B1:
		return r & 1;
	case MXA_DTYPE_S32:
		return (uint32_t)(int32_t)((int64_t)(r % 2000001) - 1000000);
	default:
		return r & 0xFF;
	}
}

/* Fill @rows rows of @cols elements, row stride @ld bytes. */
static void tu_fill(enum mxa_isa_dtype t, void *buf, size_t rows, size_t cols, size_t ld)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			mxe_row_store_code(t, (uint8_t *)buf + i * ld, j, tu_rand_code(t));
}

static size_t tu_ld(size_t ld, enum mxa_isa_dtype t, size_t n)
{
	return ld ? ld : mxe_dtype_row_bytes(t, n);
}

static double tu_in(const struct mxe_gemm_desc *d, enum mxa_isa_dtype t, uint64_t code)
{
	if (t == MXA_DTYPE_TF32) {
		float f;
		uint32_t u = (uint32_t)code;

		memcpy(&f, &u, 4);
		if (f != f)
			return NAN;
		if (d->tf32_input == MXE_TF32_IN_TRUNCATE)
			u &= ~0x1FFFu;
		else if (d->tf32_input == MXE_TF32_IN_FULL)
			;
		else
			u = mxe_cvt_f32_to_tf32(f, d->tf32_input == MXE_TF32_IN_RNA ?
						MXE_TF32_RNA : MXE_TF32_RNE, 0);
		memcpy(&f, &u, 4);
		return f;
	}
	return mxe_decode_code(t, code);
}

static double tu_scale(uint8_t s)
{
	return s == 0xFF ? NAN : ldexp(1.0, s - 127);
}

static double tu_a(const struct mxe_gemm_desc *d, size_t i, size_t kk)
{
	size_t lda = tu_ld(d->lda, d->type_a, d->k);
	double v = tu_in(d, d->type_a, mxe_row_code(d->type_a, (const uint8_t *)d->a + i * lda, kk));

	if (d->scale_block && mxe_dtype_is_mx_elem(d->type_a))
		v *= tu_scale(d->scale_a[i * (d->ld_scale_a ? d->ld_scale_a : d->k / 32) + kk / 32]);
	return (d->flags & MXE_GEMM_NEGATE_A) ? -v : v;
}

static double tu_b(const struct mxe_gemm_desc *d, size_t j, size_t kk)
{
	uint64_t code;
	double v;

	if (d->flags & MXA_GEMM_F_B_KN)
		code = mxe_row_code(d->type_b, (const uint8_t *)d->b +
				    kk * tu_ld(d->ldb, d->type_b, d->n), j);
	else
		code = mxe_row_code(d->type_b, (const uint8_t *)d->b +
				    j * tu_ld(d->ldb, d->type_b, d->k), kk);
	v = tu_in(d, d->type_b, code);
	if (d->scale_block && mxe_dtype_is_mx_elem(d->type_b))
		v *= tu_scale(d->scale_b[j * (d->ld_scale_b ? d->ld_scale_b : d->k / 32) + kk / 32]);
	return (d->flags & MXE_GEMM_NEGATE_B) ? -v : v;
}

/* Reference D (type_d codes, dense n per row) of @d with EXACT numerics. */
__attribute__((unused)) static void tu_ref_gemm(const struct mxe_gemm_desc *d, void *dref)
{
	size_t kc = d->k_chunk && d->k_chunk < d->k ? d->k_chunk : d->k;
	size_t ldc = tu_ld(d->ldc, d->type_d, d->n), ldr = mxe_dtype_row_bytes(d->type_d, d->n);
	int acc = !!(d->flags & MXA_GEMM_F_ACCUMULATE);
	int integer = d->type_d == MXA_DTYPE_S32;
	int xor = !!(d->flags & MXE_GEMM_B1_XOR);
	int prec = 24, emin = -126, emax = 127;
	struct mxe_xacc x;

	if (d->type_d == MXA_DTYPE_F16)
		prec = 11, emin = -14, emax = 15;
	if (d->type_d == MXA_DTYPE_F64)
		prec = 53, emin = -1022, emax = 1023;
	mxe_xacc_init(&x);
	for (size_t i = 0; i < d->m; i++) {
		for (size_t j = 0; j < d->n; j++) {
			const uint8_t *crow = (const uint8_t *)d->c + i * ldc;

			if (integer) {
				int64_t run = acc ? (int32_t)mxe_row_code(MXA_DTYPE_S32, crow, j) : 0;

				for (size_t k0 = 0; k0 < d->k; k0 += kc) {
					int64_t s = 0;

					for (size_t kk = k0; kk < k0 + kc && kk < d->k; kk++) {
						int64_t a = (int64_t)tu_a(d, i, kk), b = (int64_t)tu_b(d, j, kk);

						s += xor ? (a ^ b) : a * b;
					}
					run += s;
					if (d->flags & MXA_GEMM_F_SATFINITE)
						run = run > INT32_MAX ? INT32_MAX : run < INT32_MIN ? INT32_MIN : run;
					else
						run = (int32_t)(uint32_t)run;
				}
				mxe_row_store_code(MXA_DTYPE_S32, (uint8_t *)dref + i * ldr, j, (uint32_t)run);
				continue;
			}
			double run = acc ? mxe_load_elem(d->type_d, crow, j) : 0.0;

			for (size_t k0 = 0; k0 < d->k; k0 += kc) {
				mxe_xacc_clear(&x);
				if (acc || k0)
					mxe_xacc_add(&x, run);
				for (size_t kk = k0; kk < k0 + kc && kk < d->k; kk++)
					mxe_xacc_add_prod(&x, tu_a(d, i, kk), tu_b(d, j, kk),
							  d->type_a == MXA_DTYPE_F64);
				run = mxe_xacc_round(&x, prec, emin, emax);
			}
			mxe_row_store_code(d->type_d, (uint8_t *)dref + i * ldr, j,
					   mxe_encode_value(d->type_d, run, 0));
		}
	}
}

/* Number of elements of D (ld @ldd) that differ in bits from @ref (dense). */
__attribute__((unused)) static size_t tu_diff(const struct mxe_gemm_desc *d, const void *got, size_t ldd, const void *ref)
{
	size_t ldr = mxe_dtype_row_bytes(d->type_d, d->n), bad = 0;

	for (size_t i = 0; i < d->m; i++)
		for (size_t j = 0; j < d->n; j++)
			if (mxe_row_code(d->type_d, (const uint8_t *)got + i * ldd, j) !=
			    mxe_row_code(d->type_d, (const uint8_t *)ref + i * ldr, j))
				bad++;
	return bad;
}

#endif /* MXA_TEST_ENGINE_UTIL_H */
