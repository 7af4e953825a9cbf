// SPDX-License-Identifier: MIT
/*
 * mxe_gemm.c - the GEMM front end: descriptor validation (every size the
 * guest gives is checked with overflow-safe arithmetic), element access
 * shared by the paths, and the choice between the exact and the tiled path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_kernels.h"

const char *mxe_engine_strerror(int err)
{
	switch (err) {
	case MXE_ENGINE_OK:
		return "success";
	case MXE_ENGINE_EINVAL:
		return "invalid argument (NULL pointer or bad field)";
	case MXE_ENGINE_EINVAL_DTYPE:
		return "unsupported data type combination";
	case MXE_ENGINE_EINVAL_SHAPE:
		return "unsupported shape (M, N or K zero, or not an instruction shape)";
	case MXE_ENGINE_EINVAL_K_ALIGN:
		return "K is not a multiple of 64 for FP8 (e4m3/e5m2) MX data";
	case MXE_ENGINE_EINVAL_SCALE:
		return "bad MX scales (missing, unexpected, block not 32, or K not a multiple of 32)";
	case MXE_ENGINE_EINVAL_LAYOUT:
		return "bad layout (leading dimension too small or layout unsupported for the type)";
	case MXE_ENGINE_EOVERFLOW:
		return "size arithmetic overflows";
	case MXE_ENGINE_ENOMEM:
		return "out of memory";
	case MXE_ENGINE_EINVAL_OPTION:
		return "unknown numerics or scheduling option";
	case MXE_ENGINE_EBUSY:
		return "engine busy";
	default:
		return "unknown engine error";
	}
}

/* The float inputs: F32, TF32, F16, BF16 and the MX element types (FP8 among them);
 * NVFP4 arrives expanded to BF16 (mxe_nvfp4.c). */
static int is_float_in(unsigned t)
{
	return t == MXA_DTYPE_F32 || t == MXA_DTYPE_TF32 || t == MXA_DTYPE_F16 ||
	       t == MXA_DTYPE_BF16 || mxe_dtype_is_mx_elem(t);
}

static int hopper_type(unsigned t)
{
	return t == MXA_DTYPE_F16 || t == MXA_DTYPE_BF16 || t == MXA_DTYPE_TF32 || t == MXA_DTYPE_E4M3 ||
	       t == MXA_DTYPE_E5M2;
}

static int is_fp8(unsigned t)
{
	return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

/* rows x ld must fit, and ld must hold a row of @row_bytes. */
static int check_ld(size_t *ld, size_t row_bytes, size_t rows)
{
	size_t total;

	if (*ld == 0)
		*ld = row_bytes;
	if (*ld < row_bytes)
		return MXE_ENGINE_EINVAL_LAYOUT;
	if (__builtin_mul_overflow(*ld, rows, &total))
		return MXE_ENGINE_EOVERFLOW;
	return 0;
}

static int check_scale_side(unsigned t, const uint8_t *p, int *apply)
{
	*apply = 0;
	if (mxe_dtype_is_mx_elem(t)) {
		if (!p)
			return MXE_ENGINE_EINVAL_SCALE;
		*apply = 1;
		return 0;
	}
	if (t == MXA_DTYPE_F16 || t == MXA_DTYPE_BF16)
		return 0;	/* seed 004: FP16/BF16 data ignore their scales */
	return p ? MXE_ENGINE_EINVAL_SCALE : 0;
}

int mxe_op_prepare(const struct mxe_gemm_desc *desc, struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = desc;
	unsigned ta, tb, td;
	int acc, rc;
	size_t kb;

	if (!d || !op)
		return MXE_ENGINE_EINVAL;
	memset(op, 0, sizeof(*op));
	op->d = *d;
	acc = !!(d->flags & MXA_GEMM_F_ACCUMULATE);
	if (!d->a || !d->b || !d->d || (acc && !d->c))
		return MXE_ENGINE_EINVAL;
	if (d->flags & ~(MXA_GEMM_F_ACCUMULATE | MXA_GEMM_F_SATFINITE | MXA_GEMM_F_B_KN |
			 MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B | MXE_GEMM_B1_XOR))
		return MXE_ENGINE_EINVAL;
	if (d->accum > MXE_ACCUM_HOPPER || d->tf32_input > MXE_TF32_IN_FULL ||
	    d->sched > MXE_SCHED_INTERWAVE)
		return MXE_ENGINE_EINVAL_OPTION;
	if (!d->m || !d->n || !d->k)
		return MXE_ENGINE_EINVAL_SHAPE;

	ta = d->type_a;
	tb = d->type_b;
	td = d->type_d;
	if (ta >= MXA_DTYPE_COUNT || tb >= MXA_DTYPE_COUNT || td >= MXA_DTYPE_COUNT ||
	    (acc && d->type_c != td))
		return MXE_ENGINE_EINVAL_DTYPE;
	if (is_float_in(ta) && is_float_in(tb) && (td == MXA_DTYPE_F32 || td == MXA_DTYPE_F16))
		op->cls = MXE_CLASS_FLOAT;
	else if (ta == MXA_DTYPE_F64 && tb == MXA_DTYPE_F64 && td == MXA_DTYPE_F64)
		op->cls = MXE_CLASS_F64;
	else if ((ta == MXA_DTYPE_S8 || ta == MXA_DTYPE_S4) &&
		 (tb == MXA_DTYPE_S8 || tb == MXA_DTYPE_S4) && td == MXA_DTYPE_S32)
		op->cls = MXE_CLASS_INT;
	else if (ta == MXA_DTYPE_B1 && tb == MXA_DTYPE_B1 && td == MXA_DTYPE_S32)
		op->cls = MXE_CLASS_B1;
	else
		return MXE_ENGINE_EINVAL_DTYPE;
	if ((d->flags & (MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B)) &&
	    op->cls != MXE_CLASS_FLOAT && op->cls != MXE_CLASS_F64)
		return MXE_ENGINE_EINVAL;

	/* MX scales */
	if (d->scale_block != 0 && d->scale_block != MXA_MX_BLOCK)
		return MXE_ENGINE_EINVAL_SCALE;
	if (d->scale_block) {
		/* K % 32 != 0: the last block of each row is partial, with its own scale */
		rc = check_scale_side(ta, d->scale_a, &op->scale_a);
		if (!rc)
			rc = check_scale_side(tb, d->scale_b, &op->scale_b);
		if (rc)
			return rc;
		if ((is_fp8(ta) || is_fp8(tb)) && d->k % 64)
			return MXE_ENGINE_EINVAL_K_ALIGN;
	} else if (d->scale_a || d->scale_b) {
		return MXE_ENGINE_EINVAL_SCALE;
	}

	/* Layouts */
	op->lda = d->lda;
	op->ldb = d->ldb;
	op->ldc = d->ldc;
	op->ldd = d->ldd;
	op->ld_sa = d->ld_scale_a;
	op->ld_sb = d->ld_scale_b;
	rc = check_ld(&op->lda, mxe_dtype_row_bytes(ta, d->k), d->m);
	if (rc)
		return rc;
	if (d->flags & MXA_GEMM_F_B_KN) {
		if (mxe_dtype_bits(tb) < 8)
			return MXE_ENGINE_EINVAL_LAYOUT;
		rc = check_ld(&op->ldb, mxe_dtype_row_bytes(tb, d->n), d->k);
	} else {
		rc = check_ld(&op->ldb, mxe_dtype_row_bytes(tb, d->k), d->n);
	}
	if (rc)
		return rc;
	if (acc) {
		rc = check_ld(&op->ldc, mxe_dtype_row_bytes(td, d->n), d->m);
		if (rc)
			return rc;
	}
	rc = check_ld(&op->ldd, mxe_dtype_row_bytes(td, d->n), d->m);
	if (rc)
		return rc;
	kb = (d->k + MXA_MX_BLOCK - 1) / MXA_MX_BLOCK;
	if (op->scale_a && (rc = check_ld(&op->ld_sa, kb, d->m)))
		return rc;
	if (op->scale_b && (rc = check_ld(&op->ld_sb, kb, d->n)))
		return rc;

	op->k_chunk = d->k_chunk && d->k_chunk < d->k ? d->k_chunk : d->k;
	if (d->accum == MXE_ACCUM_HOPPER && op->cls != MXE_CLASS_F64 &&
	    (op->cls != MXE_CLASS_FLOAT || op->scale_a || op->scale_b || !hopper_type(ta) ||
	     !hopper_type(tb)))
		return MXE_ENGINE_EINVAL_OPTION;
	return 0;
}

/*
 * A stored K x M (MXA_GEMM_F_A_KM): every path reads A with K contiguous, so the entry
 * points that take the flag (mxe_gemm, mxe_hopper_gemm, mxe_gemm_check) give them an
 * M x K copy: @out is @in without the flag, A dense M x K at @tmp (NULL when only
 * checking: then @out->a keeps @in->a). Whole-byte types only. *@tmp is malloc()ed;
 * the caller frees it.
 */
int mxe_gemm_a_km(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp)
{
	size_t esize, ld, row;
	uint8_t *t;

	*out = *in;
	if (tmp)
		*tmp = NULL;
	if (!(in->flags & MXA_GEMM_F_A_KM))
		return 0;
	out->flags &= ~MXA_GEMM_F_A_KM;
	if (in->type_a >= MXA_DTYPE_COUNT || mxe_dtype_bits(in->type_a) < 8)
		return MXE_ENGINE_EINVAL_LAYOUT;
	if (!in->a || !in->m || !in->n || !in->k)
		return in->a ? MXE_ENGINE_EINVAL_SHAPE : MXE_ENGINE_EINVAL;
	esize = mxe_dtype_bits(in->type_a) / 8;
	row = mxe_dtype_row_bytes(in->type_a, in->m);
	ld = in->lda ? in->lda : row;
	if (ld < row)
		return MXE_ENGINE_EINVAL_LAYOUT;
	out->lda = 0;
	if (!tmp)
		return 0;
	t = malloc((size_t)in->m * in->k * esize);
	if (!t)
		return MXE_ENGINE_ENOMEM;
	for (size_t kk = 0; kk < in->k; kk++) {
		const uint8_t *src = (const uint8_t *)in->a + kk * ld;

		for (size_t i = 0; i < in->m; i++)
			memcpy(t + (i * in->k + kk) * esize, src + i * esize, esize);
	}
	out->a = t;
	*tmp = t;
	return 0;
}

int mxe_gemm_check(const struct mxe_gemm_desc *desc)
{
	struct mxe_gemm_desc d;
	struct mxe_op op;
	int rc;

	if (!desc)
		return MXE_ENGINE_EINVAL;
	rc = mxe_gemm_copies(desc, &d, NULL);
	return rc ? rc : mxe_op_prepare(&d, &op);
}

static int needs_copies(const struct mxe_gemm_desc *d)
{
	return (d->flags & MXA_GEMM_F_A_KM) || d->type_a == MXA_DTYPE_NVFP4 ||
	       d->type_b == MXA_DTYPE_NVFP4;
}

int mxe_gemm_copies(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp)
{
	if (in->type_a == MXA_DTYPE_NVFP4 || in->type_b == MXA_DTYPE_NVFP4)
		return mxe_nvfp4_expand(in, out, tmp);
	return mxe_gemm_a_km(in, out, tmp);
}

size_t mxe_gemm_copy_bytes(const struct mxe_gemm_desc *d)
{
	if (!d || !needs_copies(d))
		return 0;
	if (mxe_gemv_nvfp4_takes(d))
		return 0;	/* reads the codes themselves */
	if (d->type_a == MXA_DTYPE_NVFP4 || d->type_b == MXA_DTYPE_NVFP4)
		return ((size_t)d->m + d->n) * d->k * sizeof(uint16_t);
	return (size_t)d->m * d->k * (mxe_dtype_bits(d->type_a) / 8);
}

/* ---- element access ------------------------------------------------------- */

static double scale_value(uint8_t s)
{
	return s == 0xFF ? NAN : ldexp(1.0, (int)s - 127);
}

static double input_value(const struct mxe_op *op, unsigned t, uint64_t code)
{
	if (t == MXA_DTYPE_TF32) {
		float f = mxe_bits_f32((uint32_t)code);

		if (isnan(f))
			return NAN;
		if (op->d.tf32_input == MXE_TF32_IN_RNA)
			code = mxe_cvt_f32_to_tf32(f, MXE_TF32_RNA, 0);
		else if (op->d.tf32_input == MXE_TF32_IN_RNE)
			code = mxe_cvt_f32_to_tf32(f, MXE_TF32_RNE, 0);
		else if (op->d.tf32_input == MXE_TF32_IN_TRUNCATE)
			code &= ~0x1FFFu;
	}
	return mxe_decode_code(t, code);
}

double mxe_op_elem_a(const struct mxe_op *op, size_t i, size_t kk)
{
	const uint8_t *row = (const uint8_t *)op->d.a + i * op->lda;
	double v = input_value(op, op->d.type_a, mxe_row_code(op->d.type_a, row, kk));

	if (op->scale_a)
		v *= scale_value(op->d.scale_a[i * op->ld_sa + kk / MXA_MX_BLOCK]);
	if (op->d.flags & MXE_GEMM_NEGATE_A)
		v = -v;
	return v;
}

double mxe_op_elem_b(const struct mxe_op *op, size_t j, size_t kk)
{
	const uint8_t *b = op->d.b;
	uint64_t code;
	double v;

	if (op->d.flags & MXA_GEMM_F_B_KN)
		code = mxe_row_code(op->d.type_b, b + kk * op->ldb, j);
	else
		code = mxe_row_code(op->d.type_b, mxe_op_b_row(op, j), kk);
	v = input_value(op, op->d.type_b, code);
	if (op->scale_b)
		v *= scale_value(mxe_op_b_scales(op, j)[kk / MXA_MX_BLOCK]);
	if (op->d.flags & MXE_GEMM_NEGATE_B)
		v = -v;
	return v;
}

double mxe_round_to_accum(double s, unsigned td)
{
	if (td == MXA_DTYPE_F16)
		return mxe_decode_code(MXA_DTYPE_F16, mxe_encode_value(MXA_DTYPE_F16, s, 0));
	if (td == MXA_DTYPE_F64)
		return s;
	return (double)(float)s;
}

/* 2^(s - 127) as a double, NaN for 0xFF; exact. */
static double scale_factor(uint8_t s)
{
	return s == 0xFF ? NAN : mxe_bits_f64((uint64_t)(s - 127 + 1023) << 52);
}

/*
 * BF16, F16 and 8-bit rows through the FAST path's vector decoders, when
 * the CPU has AVX2: the same f32 values (a NaN may keep another payload;
 * NaN results are canonical). Returns 0 where the type or CPU does not fit.
 */
static int row_values_simd(unsigned t, const uint8_t *row, const float *lut, size_t k,
			   double *out)
{
	float tmp[256];

	if (!(t == MXA_DTYPE_BF16 || t == MXA_DTYPE_F16 || t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2 ||
	      t == MXA_DTYPE_E3M2 || t == MXA_DTYPE_E2M3 || t == MXA_DTYPE_MXINT8) || !mxe_cpu_use_avx2())
		return 0;
	for (size_t k0 = 0; k0 < k; k0 += 256) {
		size_t n = k - k0 < 256 ? k - k0 : 256;

		if (t == MXA_DTYPE_BF16)
			mxe_decode_bf16_avx2((const uint16_t *)row + k0, tmp, n);
		else if (t == MXA_DTYPE_F16)
			mxe_decode_f16_avx2((const uint16_t *)row + k0, tmp, n);
		else
			mxe_decode_lut8_avx2(row + k0, lut, tmp, n);
		for (size_t kk = 0; kk < n; kk++)
			out[k0 + kk] = tmp[kk];
	}
	return 1;
}

/*
 * Element @j of @k rows @ld bytes apart (B stored K x N) for F32, BF16 and F16, the
 * types an attention's cache takes: their values as the row decoders give them, without
 * a call an element (mxe_op_elem_b()). Returns 0 for the other types.
 */
static int column_values(unsigned t, const uint8_t *b, size_t ld, size_t j, size_t k,
			 double *out)
{
	switch (t) {
	case MXA_DTYPE_F32:
		for (size_t kk = 0; kk < k; kk++) {
			float f;

			memcpy(&f, b + kk * ld + 4 * j, 4);
			out[kk] = f;
		}
		return 1;
	case MXA_DTYPE_BF16:
	case MXA_DTYPE_F16:
		for (size_t kk = 0; kk < k; kk++) {
			uint16_t h;

			memcpy(&h, b + kk * ld + 2 * j, 2);
			out[kk] = t == MXA_DTYPE_BF16 ? mxe_cvt_bf16_to_f32(h) : mxe_cvt_f16_to_f32(h);
		}
		return 1;
	default:
		return 0;
	}
}

/* The same one element at a time, for every type. */
static void row_values_scalar(const struct mxe_op *op, unsigned t, const uint8_t *row,
			      const float *lut, size_t k, double *out)
{
	switch (t) {
	case MXA_DTYPE_F32:	/* mxe_decode_code()'s value, without a call an element */
		for (size_t kk = 0; kk < k; kk++) {
			float f;

			memcpy(&f, row + 4 * kk, 4);
			out[kk] = f;
		}
		break;
	case MXA_DTYPE_F64:
	case MXA_DTYPE_TF32:
	case MXA_DTYPE_S32:
	case MXA_DTYPE_B1:
		for (size_t kk = 0; kk < k; kk++)
			out[kk] = input_value(op, t, mxe_row_code(t, row, kk));
		break;
	case MXA_DTYPE_F16:
		for (size_t kk = 0; kk < k; kk++)
			out[kk] = mxe_cvt_f16_to_f32((uint16_t)mxe_row_code(t, row, kk));
		break;
	case MXA_DTYPE_BF16:
		for (size_t kk = 0; kk < k; kk++)
			out[kk] = mxe_cvt_bf16_to_f32((uint16_t)mxe_row_code(t, row, kk));
		break;
	default:	/* 8-bit and narrower codes: exact f32 table */
		for (size_t kk = 0; kk < k; kk++)
			out[kk] = lut[mxe_row_code(t, row, kk)];
		break;
	}
}

void mxe_op_row_values(const struct mxe_op *op, int side, size_t r, double *out)
{
	mxe_op_row_range(op, side, r, 0, op->d.k, out);
}

void mxe_op_row_range(const struct mxe_op *op, int side, size_t r, size_t k0, size_t k,
		      double *out)
{
	unsigned t = side ? op->d.type_b : op->d.type_a;
	const uint8_t *row;
	const float *lut;

	if (side && (op->d.flags & MXA_GEMM_F_B_KN)) {
		if (!column_values(t, (const uint8_t *)op->d.b + k0 * op->ldb, op->ldb, r, k, out)) {
			for (size_t kk = 0; kk < k; kk++)
				out[kk] = mxe_op_elem_b(op, r, k0 + kk);
			return;
		}
	} else {
		/* k0 is 0 or a multiple of 256: a whole byte of every type */
		row = (side ? mxe_op_b_row(op, r) : (const uint8_t *)op->d.a + r * op->lda) +
		      mxe_dtype_row_bytes(t, k0);
		lut = mxe_decode_lut(t);
		if (!row_values_simd(t, row, lut, k, out))
			row_values_scalar(op, t, row, lut, k, out);
	}
	if (side ? op->scale_b : op->scale_a) {
		const uint8_t *sc = side ? mxe_op_b_scales(op, r) : op->d.scale_a + r * op->ld_sa;

		for (size_t kk = 0; kk < k; kk++)
			out[kk] *= scale_factor(sc[(k0 + kk) / MXA_MX_BLOCK]);
	}
	if (op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A))
		for (size_t kk = 0; kk < k; kk++)
			out[kk] = -out[kk];
}

double mxe_op_load_c(const struct mxe_op *op, size_t i, size_t j)
{
	const uint8_t *row;

	if (!(op->d.flags & MXA_GEMM_F_ACCUMULATE))
		return 0.0;
	row = (const uint8_t *)op->d.c + i * op->ldc;
	if (op->d.type_c == MXA_DTYPE_F32) {
		float f;

		memcpy(&f, row + 4 * j, 4);
		return f;
	}
	return mxe_load_elem(op->d.type_c, row, j);
}

int64_t mxe_op_load_c_int(const struct mxe_op *op, size_t i, size_t j)
{
	if (!(op->d.flags & MXA_GEMM_F_ACCUMULATE))
		return 0;
	return (int32_t)mxe_row_code(MXA_DTYPE_S32, (const uint8_t *)op->d.c + i * op->ldc, j);
}

/* The bits an F32 D holds for @f: every NaN as MXE_F32_CANON_NAN. */
static inline uint32_t d_f32_bits(float f)
{
	return f != f ? MXE_F32_CANON_NAN : mxe_f32_bits(f);
}

void mxe_op_store_d(const struct mxe_op *op, size_t i, size_t j, double v)
{
	if (op->d.type_d == MXA_DTYPE_F32) {
		uint32_t u = d_f32_bits((float)v);

		memcpy((uint8_t *)op->d.d + i * op->ldd + 4 * j, &u, 4);
		return;
	}
	mxe_row_store_code(op->d.type_d, (uint8_t *)op->d.d + i * op->ldd, j,
			   mxe_encode_value(op->d.type_d, v, 0));
}

void mxe_op_store_row_f32(const struct mxe_op *op, size_t i, size_t j0, const float *v, size_t n)
{
	uint8_t *row = (uint8_t *)op->d.d + i * op->ldd + 4 * j0;

	if (op->d.type_d != MXA_DTYPE_F32) {
		for (size_t c = 0; c < n; c++)
			mxe_op_store_d(op, i, j0 + c, v[c]);
		return;
	}
	for (size_t c = 0; c < n; c++) {	/* as mxe_op_store_d(), without a call a value */
		uint32_t u = d_f32_bits(v[c]);

		memcpy(row + 4 * c, &u, 4);
	}
}

void mxe_op_store_d_int(const struct mxe_op *op, size_t i, size_t j, int64_t v)
{
	mxe_row_store_code(MXA_DTYPE_S32, (uint8_t *)op->d.d + i * op->ldd, j,
			   (uint32_t)(int32_t)v);
}

/* ---- dispatch ------------------------------------------------------------- */

int mxe_gemm(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct mxe_op op;
	int rc;

	if (desc && needs_copies(desc)) {
		struct mxe_gemm_desc d;
		void *tmp;

		rc = mxe_gemv_nvfp4_run(eng, desc);	/* NVFP4 without its copies */
		if (rc <= 0)
			return rc;
		rc = mxe_tiled_nvfp4_run(eng, desc);
		if (rc <= 0)
			return rc;
		rc = mxe_gemm_copies(desc, &d, &tmp);
		if (!rc)
			rc = mxe_gemm(eng, &d);
		free(tmp);
		return rc;
	}
	rc = mxe_op_prepare(desc, &op);
	if (rc)
		return rc;
	if (op.d.b_rows) {	/* row by row: the GEMV paths alone read B that way */
		if (!mxe_gemv_takes(desc))
			return MXE_ENGINE_EINVAL_LAYOUT;
		if (op.d.accum == MXE_ACCUM_FAST) {
			rc = mxe_gemv_fast_run(eng, &op);
			if (rc <= 0)
				return rc;
			/* scales FAST cannot take: the exact path's bits, as the tiled
			 * path would hand them on */
			op.d.accum = MXE_ACCUM_EXACT;
		}
		rc = mxe_gemv_run(eng, &op);
		return rc == 1 ? MXE_ENGINE_EINVAL_LAYOUT : rc;
	}
	if (op.d.accum == MXE_ACCUM_FAST) {
		rc = mxe_gemv_fast_run(eng, &op);
		if (rc <= 0)
			return rc;
	}
	if (op.d.accum == MXE_ACCUM_FAST ||
	    ((op.cls == MXE_CLASS_INT || op.cls == MXE_CLASS_B1) &&
	     (op.k_chunk == op.d.k || !(op.d.flags & MXA_GEMM_F_SATFINITE)))) {
		/* Integer results are exact either way (wrapping once per chunk
		 * is wrapping once at the end); the tiled path is faster. */
		rc = mxe_tiled_run(eng, &op);
		if (rc <= 0)
			return rc;
	}
	if (op.d.accum == MXE_ACCUM_EXACT) {
		/* the policy first: interwave is a strategy of its own */
		rc = op.d.sched == MXE_SCHED_INTERWAVE ? mxe_interwave_run(eng, &op) :
							  mxe_gemv_run(eng, &op);
		if (rc <= 0)
			return rc;
		rc = mxe_tiled_exact_run(eng, &op);
		if (rc <= 0)
			return rc;
	}
	return mxe_exact_run(eng, &op);
}
