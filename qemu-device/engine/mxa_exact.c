// SPDX-License-Identifier: MIT
/*
 * mxa_exact.c - the EXACT numerics path.
 *
 * DOC: exact chunk sums, one rounding per chunk
 *
 * For every output element, K is cut into chunks of op->k_chunk elements
 * (the instruction's K, or all of K). Each chunk's products are exact
 * doubles (every MXA input type times its E8M0 scale fits; f64 products are
 * split into p + err by FMA) and go into an exact accumulator together with
 * the incoming accumulator value (C for the first chunk when accumulating,
 * the previous chunk's rounded result afterwards); the sum is rounded once
 * to the accumulator type (f32, f16 or f64). Integer chunks are summed in
 * int64 and wrapped or clamped to int32 once per chunk.
 *
 * Work is split into output tiles; each element's arithmetic does not depend
 * on the tile it falls in, so any thread count gives the same bits.
 */
#include <math.h>
#include <stdlib.h>

#include "mxa_formats.h"
#include "mxa_gemm.h"
#include "mxa_pool.h"
#include "mxa_xacc.h"

#define EXACT_TILE_MAX 16
#define EXACT_DECODE_BYTES (16u << 20)

struct exact_job {
	const struct mxa_op *op;
	unsigned tm, tn;	/* tile size */
	unsigned tiles_m, tiles_n;
	int failed;
};

static unsigned exact_phase_tasks(void *arg, unsigned phase)
{
	struct exact_job *job = arg;

	return phase == 0 ? job->tiles_m * job->tiles_n : 0;
}

static void round_params(unsigned td, int *prec, int *emin, int *emax)
{
	switch (td) {
	case MXA_DT_F16:
		*prec = 11, *emin = -14, *emax = 15;
		break;
	case MXA_DT_F64:
		*prec = 53, *emin = -1022, *emax = 1023;
		break;
	default:
		*prec = 24, *emin = -126, *emax = 127;
		break;
	}
}

/* An exact double rounded once to the accumulator type (as a double). */
static double round_exact_double(double s, unsigned td)
{
	if (td == MXA_DT_F16)
		return mxa_decode_code(MXA_DT_F16, mxa_encode_value(MXA_DT_F16, s, 0));
	if (td == MXA_DT_F64)
		return s;
	return (double)(float)s;
}

static void exact_float_tile(const struct mxa_op *op, size_t i0, size_t i1,
			     size_t j0, size_t j1, double *av, double *bv)
{
	size_t k = op->d.k, kc = op->k_chunk;
	int acc = !!(op->d.flags & MXA_GEMM_ACCUMULATE);
	int twoprod = op->cls == MXA_CLASS_F64;
	unsigned td = op->d.type_d;
	int prec, emin, emax;
	struct mxa_xacc x;

	round_params(op->d.type_d, &prec, &emin, &emax);
	for (size_t i = i0; i < i1; i++)
		mxa_op_row_values(op, 0, i, av + (i - i0) * k);
	for (size_t j = j0; j < j1; j++)
		mxa_op_row_values(op, 1, j, bv + (j - j0) * k);

	mxa_xacc_init(&x);
	for (size_t i = i0; i < i1; i++) {
		const double *a = av + (i - i0) * k;

		for (size_t j = j0; j < j1; j++) {
			const double *b = bv + (j - j0) * k;
			double run = mxa_op_load_c(op, i, j);
			int have_run = acc;

			for (size_t k0 = 0; k0 < k; k0 += kc) {
				size_t k1 = k0 + kc < k ? k0 + kc : k;
				double s;

				/* Most chunk sums are exact in a double: round that once. */
				if (!twoprod && isfinite(run) &&
				    mxa_dot_try_double(a + k0, b + k0, k1 - k0,
						       have_run ? run : -0.0, &s)) {
					run = round_exact_double(s, td);
				} else {
					mxa_xacc_clear(&x);
					if (have_run)
						mxa_xacc_add(&x, run);
					mxa_xacc_add_dot(&x, a + k0, b + k0, k1 - k0, twoprod);
					run = mxa_xacc_round(&x, prec, emin, emax);
				}
				have_run = 1;
			}
			mxa_op_store_d(op, i, j, run);
		}
	}
}

static void exact_int_tile(const struct mxa_op *op, size_t i0, size_t i1,
			   size_t j0, size_t j1, int64_t *av, int64_t *bv)
{
	size_t k = op->d.k, kc = op->k_chunk;
	int sat = !!(op->d.flags & MXA_GEMM_SATFINITE);
	int xor = op->cls == MXA_CLASS_B1 && (op->d.flags & MXA_GEMM_B1_XOR);

	for (size_t i = i0; i < i1; i++)
		for (size_t kk = 0; kk < k; kk++)
			av[(i - i0) * k + kk] = (int64_t)mxa_op_elem_a(op, i, kk);
	for (size_t j = j0; j < j1; j++)
		for (size_t kk = 0; kk < k; kk++)
			bv[(j - j0) * k + kk] = (int64_t)mxa_op_elem_b(op, j, kk);

	for (size_t i = i0; i < i1; i++) {
		const int64_t *a = av + (i - i0) * k;

		for (size_t j = j0; j < j1; j++) {
			const int64_t *b = bv + (j - j0) * k;
			int64_t run = mxa_op_load_c_int(op, i, j);

			for (size_t k0 = 0; k0 < k; k0 += kc) {
				size_t k1 = k0 + kc < k ? k0 + kc : k;
				int64_t s = 0;

				if (xor)
					for (size_t kk = k0; kk < k1; kk++)
						s += a[kk] ^ b[kk];
				else
					for (size_t kk = k0; kk < k1; kk++)
						s += a[kk] * b[kk];
				run = mxa_int32_finish(run + s, sat);
			}
			mxa_op_store_d_int(op, i, j, run);
		}
	}
}

static void exact_task(void *arg, unsigned phase, unsigned task)
{
	struct exact_job *job = arg;
	const struct mxa_op *op = job->op;
	size_t i0 = (size_t)(task / job->tiles_n) * job->tm;
	size_t j0 = (size_t)(task % job->tiles_n) * job->tn;
	size_t i1 = i0 + job->tm < op->d.m ? i0 + job->tm : op->d.m;
	size_t j1 = j0 + job->tn < op->d.n ? j0 + job->tn : op->d.n;
	size_t k = op->d.k;
	void *av = mxa_scratch(0, (size_t)job->tm * k * 8);
	void *bv = mxa_scratch(1, (size_t)job->tn * k * 8);

	(void)phase;
	if (!av || !bv) {
		job->failed = 1;
		return;
	}
	if (op->cls == MXA_CLASS_INT || op->cls == MXA_CLASS_B1)
		exact_int_tile(op, i0, i1, j0, j1, av, bv);
	else
		exact_float_tile(op, i0, i1, j0, j1, av, bv);
}

static const struct mxa_job_ops exact_ops = {
	.phase_tasks = exact_phase_tasks,
	.task = exact_task,
};

int mxa_exact_run(struct mxa_engine *eng, const struct mxa_op *op)
{
	struct exact_job job = { .op = op };
	size_t t = EXACT_DECODE_BYTES / (16 * (size_t)op->d.k);

	if (t > EXACT_TILE_MAX)
		t = EXACT_TILE_MAX;
	if (t < 1)
		t = 1;
	job.tm = job.tn = (unsigned)t;
	job.tiles_m = (op->d.m + job.tm - 1) / job.tm;
	job.tiles_n = (op->d.n + job.tn - 1) / job.tn;
	mxa_pool_run(eng, op->d.nthreads, &exact_ops, &job);
	return job.failed ? MXA_ENGINE_ENOMEM : 0;
}
