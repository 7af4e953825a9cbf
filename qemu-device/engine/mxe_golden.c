// SPDX-License-Identifier: MIT
/*
 * mxe_golden.c - MXGV reader and golden-case judge.
 *
 * The judge computes its own float64 reference from the raw inputs (exact
 * products, an exact sum, rounded to f64) with its own decoding of scales,
 * so an engine bug in scale or TF32 handling cannot hide in the reference.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_formats.h"
#include "mxe_golden.h"
#include "mxe_xacc.h"

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Add @rows x @row_bytes to *off, overflow-safe. */
static int take(size_t *off, size_t rows, size_t row_bytes, size_t *start)
{
	size_t bytes;

	if (__builtin_mul_overflow(rows, row_bytes, &bytes) ||
	    __builtin_add_overflow(*off, bytes, &bytes))
		return -EOVERFLOW;
	*start = *off;
	*off = bytes;
	return 0;
}

int mxe_golden_load(const char *path, struct mxe_golden_case *gc)
{
	const char *base;
	FILE *f;
	long len;
	size_t off = 64, o;
	int rc = 0;

	memset(gc, 0, sizeof(*gc));
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(gc->name, sizeof(gc->name), "%s", base);
	if (strlen(gc->name) > 5 && !strcmp(gc->name + strlen(gc->name) - 5, ".mxgv"))
		gc->name[strlen(gc->name) - 5] = 0;

	f = fopen(path, "rb");
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	gc->size = (size_t)len;
	gc->buf = malloc(gc->size ? gc->size : 1);
	if (!gc->buf) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(gc->buf, 1, gc->size, f) != gc->size) {
		fclose(f);
		mxe_golden_free(gc);
		return -EIO;
	}
	fclose(f);
	if (gc->size < 64 || memcmp(gc->buf, "MXGV", 4)) {
		mxe_golden_free(gc);
		return -EINVAL;
	}
	{
		uint32_t h[15];

		for (int i = 0; i < 15; i++)
			h[i] = rd32(gc->buf + 4 + 4 * i);
		gc->version = h[0];
		gc->kind = h[1];
		gc->dtype_a = h[2];
		gc->dtype_b = h[3];
		gc->dtype_c = h[4];
		gc->dtype_d = h[5];
		gc->m = h[6];
		gc->n = h[7];
		gc->k = h[8];
		gc->scale_block = h[9];
		gc->flags = h[10];
		gc->oracle = h[11];
	}
	if (gc->version != 1 || gc->dtype_a >= MXA_DTYPE_COUNT || gc->dtype_d >= MXA_DTYPE_COUNT) {
		mxe_golden_free(gc);
		return -EINVAL;
	}

	if (gc->kind == MXGV_KIND_CONVERT) {
		/* Conversion cases store sub-byte codes one per byte. */
		size_t ea = mxe_dtype_bits(gc->dtype_a) < 8 ? 1 : mxe_dtype_bits(gc->dtype_a) / 8;
		size_t ed = mxe_dtype_bits(gc->dtype_d) < 8 ? 1 : mxe_dtype_bits(gc->dtype_d) / 8;

		rc = take(&off, gc->m, ea, &o);
		gc->a = gc->buf + o;
		if (!rc)
			rc = take(&off, gc->m, ed, &o);
		gc->d = gc->buf + o;
	} else if (gc->kind == MXGV_KIND_MATMUL) {
		if (gc->dtype_b >= MXA_DTYPE_COUNT ||
		    ((gc->flags & MXGV_F_ACCUM) && gc->dtype_c >= MXA_DTYPE_COUNT) ||
		    (gc->scale_block &&
		     (gc->scale_block != (gc->dtype_a == MXA_DTYPE_NVFP4 ? MXA_NVFP4_BLOCK :
									   MXA_MX_BLOCK) ||
		      (gc->scale_block == MXA_MX_BLOCK && gc->k % MXA_MX_BLOCK)))) {
			mxe_golden_free(gc);
			return -EINVAL;
		}
		gc->lda = mxe_dtype_row_bytes(gc->dtype_a, gc->k);
		gc->ldb = mxe_dtype_row_bytes(gc->dtype_b, gc->k);
		gc->ldd = mxe_dtype_row_bytes(gc->dtype_d, gc->n);
		rc = take(&off, gc->m, gc->lda, &o);
		gc->a = gc->buf + o;
		if (!rc)
			rc = take(&off, gc->n, gc->ldb, &o);
		gc->b = gc->buf + o;
		if (!rc && gc->scale_block) {
			/* NVFP4's last block may be partial */
			gc->ld_sa = gc->ld_sb = (gc->k + gc->scale_block - 1) / gc->scale_block;
			rc = take(&off, gc->m, gc->ld_sa, &o);
			gc->sa = gc->buf + o;
			if (!rc)
				rc = take(&off, gc->n, gc->ld_sb, &o);
			gc->sb = gc->buf + o;
		}
		if (!rc && (gc->flags & MXGV_F_ACCUM)) {
			gc->ldc = mxe_dtype_row_bytes(gc->dtype_c, gc->n);
			rc = take(&off, gc->m, gc->ldc, &o);
			gc->c = gc->buf + o;
		}
		if (!rc)
			rc = take(&off, gc->m, gc->ldd, &o);
		gc->d = gc->buf + o;
	} else {
		rc = -EINVAL;
	}
	if (!rc && off != gc->size)
		rc = -EINVAL;	/* truncated or trailing bytes */
	if (rc)
		mxe_golden_free(gc);
	return rc;
}

void mxe_golden_free(struct mxe_golden_case *gc)
{
	free(gc->buf);
	gc->buf = NULL;
	gc->a = gc->b = gc->sa = gc->sb = gc->c = gc->d = NULL;
}

/* ---- judging -------------------------------------------------------------- */

static int run_convert(const struct mxe_golden_case *gc, struct mxe_golden_result *res)
{
	size_t n = gc->m, same = 0;
	void *out = calloc(n + 1, 8);
	unsigned flags = MXE_CVT_UNPACKED |
			 ((gc->flags & MXGV_F_SATFINITE) ? MXE_CVT_SATFINITE : 0);
	int rc;

	if (!out)
		return -ENOMEM;
	rc = mxe_convert(gc->dtype_d, out, gc->dtype_a, gc->a, n, flags);
	if (rc) {
		snprintf(res->why, sizeof(res->why), "engine: %s", mxe_engine_strerror(rc));
		free(out);
		return 0;
	}
	res->maxerr = 0.0;
	for (size_t i = 0; i < n; i++) {
		uint64_t g, e;

		if (mxe_dtype_bits(gc->dtype_d) < 8) {
			g = ((const uint8_t *)out)[i];
			e = gc->d[i];
		} else {
			g = mxe_row_code(gc->dtype_d, out, i);
			e = mxe_row_code(gc->dtype_d, gc->d, i);
		}

		if (g == e) {
			same++;
		} else {
			double gv = mxe_decode_code(gc->dtype_d, g);
			double ev = mxe_decode_code(gc->dtype_d, e);
			double err = ev != 0.0 ? fabs(gv - ev) / fabs(ev) : fabs(gv - ev);

			if (isnan(err))
				err = INFINITY;
			if (err > res->maxerr)
				res->maxerr = err;
			if (!res->why[0])
				snprintf(res->why, sizeof(res->why),
					 "element %zu: got 0x%llx want 0x%llx", i,
					 (unsigned long long)g, (unsigned long long)e);
		}
	}
	res->bitexact = n ? (double)same / (double)n : 1.0;
	res->pass = same == n;
	free(out);
	return 0;
}

/* An E8M0 scale, or NVFP4's UE4M3 (the sign bit not read); NaN codes give NaN. */
static double scale_of(unsigned t, const uint8_t *s)
{
	if (t == MXA_DTYPE_NVFP4)
		return mxe_cvt_ue4m3_to_f32(*s);
	return *s == 0xFF ? NAN : ldexp(1.0, (int)*s - 127);
}

static int side_scaled(const struct mxe_golden_case *gc, unsigned t)
{
	return gc->scale_block && mxa_dtype_scale_block(t) == gc->scale_block &&
	       !(gc->flags & MXGV_F_SCALE_IGNORED);
}

static double ref_a(const struct mxe_golden_case *gc, size_t i, size_t kk)
{
	double v = mxe_load_elem(gc->dtype_a, gc->a + i * gc->lda, kk);

	if (side_scaled(gc, gc->dtype_a))
		v *= scale_of(gc->dtype_a, gc->sa + i * gc->ld_sa + kk / gc->scale_block);
	return v;
}

static double ref_b(const struct mxe_golden_case *gc, size_t j, size_t kk)
{
	double v = mxe_load_elem(gc->dtype_b, gc->b + j * gc->ldb, kk);

	if (side_scaled(gc, gc->dtype_b))
		v *= scale_of(gc->dtype_b, gc->sb + j * gc->ld_sb + kk / gc->scale_block);
	return v;
}

static int is_b1_xor(const struct mxe_golden_case *gc)
{
	return strstr(gc->name, "xor") != NULL;
}

/* Run the engine the way the case's oracle ran the hardware. */
static int engine_matmul(struct mxe_engine *eng, const struct mxe_golden_case *gc,
			 const struct mxe_golden_opts *o, void *dout)
{
	struct mxe_gemm_desc d;

	memset(&d, 0, sizeof(d));
	d.m = gc->m;
	d.n = gc->n;
	d.k = gc->k;
	d.type_a = (uint8_t)gc->dtype_a;
	d.type_b = (uint8_t)gc->dtype_b;
	d.type_c = (uint8_t)((gc->flags & MXGV_F_ACCUM) ? gc->dtype_c : gc->dtype_d);
	d.type_d = (uint8_t)gc->dtype_d;
	d.a = gc->a;
	d.lda = gc->lda;
	d.b = gc->b;
	d.ldb = gc->ldb;
	d.d = dout;
	d.ldd = gc->ldd;
	if (gc->flags & MXGV_F_ACCUM) {
		d.flags |= MXA_GEMM_F_ACCUMULATE;
		d.c = gc->c;
		d.ldc = gc->ldc;
	}
	if (gc->dtype_a == MXA_DTYPE_B1 && is_b1_xor(gc))
		d.flags |= MXE_GEMM_B1_XOR;
	if (gc->scale_block) {
		d.scale_block = gc->scale_block;
		d.scale_a = gc->sa;
		d.scale_b = gc->sb;
		d.ld_scale_a = gc->ld_sa;
		d.ld_scale_b = gc->ld_sb;
	}
	d.tf32_input = o->tf32_input;
	d.sched = o->sched;
	d.nthreads = o->nthreads;
	if (o->accum == MXE_ACCUM_HOPPER && (gc->oracle == MXGV_ORACLE_H200_WMMA ||
					     gc->oracle == MXGV_ORACLE_H200_WGMMA) &&
	    gc->dtype_d != MXA_DTYPE_S32) {
		/* the tensor core itself: truncated TF32 inputs, its accumulator */
		d.accum = MXE_ACCUM_HOPPER;
		d.tf32_input = MXE_TF32_IN_TRUNCATE;
	}

	switch (gc->oracle) {
	case MXGV_ORACLE_H200_WMMA:
		return mxe_mma(eng, &d);
	case MXGV_ORACLE_F64_MATH:
		d.accum = o->accum == MXE_ACCUM_HOPPER ? MXE_ACCUM_EXACT : o->accum;
		return mxe_tmatmulmx(eng, &d);
	case MXGV_ORACLE_H200_WGMMA: {
		/* Chained wgmma instructions, K = 32 bytes each, D as accumulator. */
		unsigned ebits = mxe_dtype_bits(gc->dtype_a);
		unsigned kstep = ebits ? 256 / ebits : 0;
		int rc = 0;

		if (!kstep || gc->k % kstep)
			return MXE_ENGINE_EINVAL_SHAPE;
		for (unsigned s = 0; s < gc->k / kstep && !rc; s++) {
			struct mxe_gemm_desc w = d;

			w.k = kstep;
			w.a = gc->a + (size_t)s * kstep * ebits / 8;
			w.b = gc->b + (size_t)s * kstep * ebits / 8;
			if (s > 0) {
				w.flags |= MXA_GEMM_F_ACCUMULATE;
				w.c = dout;
				w.ldc = gc->ldd;
				w.type_c = w.type_d;
			}
			rc = mxe_wgmma(eng, &w);
		}
		return rc;
	}
	case MXGV_ORACLE_H200_CUBLAS:
		if (o->accum == MXE_ACCUM_HOPPER && gc->dtype_d != MXA_DTYPE_S32) {
			/* cuBLAS's chains of tensor-core instructions; TF32 inputs
			 * rounded to nearest even by cuBLAS (o->tf32_input) */
			struct mxe_hopper_plan plan;

			if (o->plan_elsewhere)
				mxe_hopper_cublas_plan_elsewhere(&d, !!(gc->flags & MXGV_F_FAST_ACCUM),
								 &plan);
			else
				mxe_hopper_cublas_plan(&d, !!(gc->flags & MXGV_F_FAST_ACCUM), &plan);
			return mxe_hopper_gemm(eng, &d, &plan);
		}
		/* fall through */
	default:
		d.accum = o->accum == MXE_ACCUM_HOPPER ? MXE_ACCUM_EXACT : o->accum;
		if (gc->oracle == MXGV_ORACLE_H200_CUBLAS && !o->tf32_input)
			d.tf32_input = MXE_LIBRARY_TF32_INPUT;	/* as the GEMM command */
		return mxe_gemm(eng, &d);
	}
}

static int run_matmul(struct mxe_engine *eng, const struct mxe_golden_case *gc,
		      const struct mxe_golden_opts *o, struct mxe_golden_result *res)
{
	size_t m = gc->m, n = gc->n, k = gc->k, same = 0, bad = 0;
	unsigned td = gc->dtype_d;
	int integer = td == MXA_DTYPE_S32;
	int acc = !!(gc->flags & MXGV_F_ACCUM);
	int twoprod = gc->dtype_a == MXA_DTYPE_F64;
	int prec, emin, emax;
	double umax_fast = 0.0, maxerr = 0.0, oerr = 0.0;
	uint8_t *dout;
	double *av, *bv;
	struct mxe_xacc x;
	int rc;

	dout = calloc(m, gc->ldd);
	if (!dout)
		return -ENOMEM;
	rc = engine_matmul(eng, gc, o, dout);
	if (rc) {
		snprintf(res->why, sizeof(res->why), "engine cannot run it: %s",
			 mxe_engine_strerror(rc));
		res->maxerr = INFINITY;
		res->oracle_err = NAN;
		free(dout);
		return 0;
	}
	if (td == MXA_DTYPE_F16)
		prec = 11, emin = -14, emax = 15;
	else if (td == MXA_DTYPE_F64)
		prec = 53, emin = -1022, emax = 1023;
	else
		prec = 24, emin = -126, emax = 127;
	if (o->accum == MXE_ACCUM_FAST && gc->oracle == MXGV_ORACLE_F64_MATH) {
		/* Documented FAST bound: (KBLOCK + number of blocks + 1) units. */
		size_t nblk = (k + MXE_FAST_KBLOCK - 1) / MXE_FAST_KBLOCK;
		size_t chain = k < MXE_FAST_KBLOCK ? k : MXE_FAST_KBLOCK;

		umax_fast = (double)(chain + nblk + 1) * ldexp(1.0, -24);
	}

	av = malloc(m * k * sizeof(double));
	bv = malloc(n * k * sizeof(double));
	if (!av || !bv) {
		free(av);
		free(bv);
		free(dout);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m; i++)
		for (size_t kk = 0; kk < k; kk++)
			av[i * k + kk] = ref_a(gc, i, kk);
	for (size_t j = 0; j < n; j++)
		for (size_t kk = 0; kk < k; kk++)
			bv[j * k + kk] = ref_b(gc, j, kk);

	mxe_xacc_init(&x);
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++) {
			uint64_t g = mxe_row_code(td, dout + i * gc->ldd, j);
			uint64_t e = mxe_row_code(td, gc->d + i * gc->ldd, j);
			double cval = acc ? mxe_load_elem(gc->dtype_c, gc->c + i * gc->ldc, j) : 0.0;
			double den = fabs(cval), s, gv, ev, ge, ee;

			if (g == e)
				same++;
			if (integer) {
				if (g != e && !bad++)
					snprintf(res->why, sizeof(res->why),
						 "D[%zu][%zu] = %d, want %d", i, j,
						 (int32_t)g, (int32_t)e);
				continue;
			}
			mxe_xacc_clear(&x);
			if (acc)
				mxe_xacc_add(&x, cval);
			mxe_xacc_add_dot(&x, av + i * k, bv + j * k, k, twoprod);
			for (size_t kk = 0; kk < k; kk++)
				den += fabs(av[i * k + kk] * bv[j * k + kk]);
			s = mxe_xacc_round(&x, 53, -1022, 1023);
			gv = mxe_decode_code(td, g);
			ev = mxe_decode_code(td, e);

			if (!isfinite(ev) || !isfinite(gv) || !isfinite(s)) {
				/* Special results must match in kind. */
				int ok = isnan(ev) ? isnan(gv) : (gv == ev);

				if (!ok && !bad++)
					snprintf(res->why, sizeof(res->why),
						 "D[%zu][%zu] = %g, want %g", i, j, gv, ev);
				continue;
			}
			ge = den > 0 ? fabs(gv - s) / den : fabs(gv - s);
			ee = den > 0 ? fabs(ev - s) / den : fabs(ev - s);
			if (ge > maxerr)
				maxerr = ge;
			if (ee > oerr)
				oerr = ee;
			if (gc->oracle == MXGV_ORACLE_F64_MATH && g != e) {
				int ok;

				if (o->accum == MXE_ACCUM_FAST) {
					ok = ge <= umax_fast;
				} else {
					/* EXACT: must be the exact sum rounded once. */
					double r = mxe_xacc_round(&x, prec, emin, emax);

					ok = mxe_encode_value(td, r, 0) == g;
				}
				if (!ok && !bad++)
					snprintf(res->why, sizeof(res->why),
						 "D[%zu][%zu] = %.9g, want %.9g (exact %.17g)",
						 i, j, gv, ev, s);
			}
		}
	}
	res->bitexact = (double)same / (double)(m * n);
	res->maxerr = maxerr;
	res->oracle_err = integer ? NAN : oerr;
	free(av);
	free(bv);
	if (bad) {
		res->pass = 0;
	} else if (integer || gc->oracle == MXGV_ORACLE_F64_MATH) {
		res->pass = 1;
	} else {
		res->pass = maxerr <= oerr;
		if (!res->pass)
			snprintf(res->why, sizeof(res->why),
				 "error %.3g above the hardware's %.3g", maxerr, oerr);
	}
	free(dout);
	return 0;
}

int mxe_golden_run(struct mxe_engine *eng, const struct mxe_golden_case *gc,
		   const struct mxe_golden_opts *opts, struct mxe_golden_result *res)
{
	struct mxe_golden_opts zero;

	memset(res, 0, sizeof(*res));
	res->oracle_err = NAN;
	if (!opts) {
		memset(&zero, 0, sizeof(zero));
		opts = &zero;
	}
	if (gc->kind == MXGV_KIND_CONVERT)
		return run_convert(gc, res);
	return run_matmul(eng, gc, opts, res);
}

void mxe_golden_format(const struct mxe_golden_case *gc,
		       const struct mxe_golden_result *res, char *buf, size_t len)
{
	char oe[32];

	if (isnan(res->oracle_err))
		snprintf(oe, sizeof(oe), "-");
	else
		snprintf(oe, sizeof(oe), "%.9g", res->oracle_err);
	snprintf(buf, len, "%s %s maxerr=%.9g oracle_err=%s bitexact=%.4f", gc->name,
		 res->pass ? "PASS" : "FAIL", res->maxerr, oe, res->bitexact);
}
