// SPDX-License-Identifier: MIT
/*
 * mxe_interwave.c - the INTERWAVE policy of the EXACT path (mxe_exact.c is INTRAWAVE:
 * each thread owns output tiles and decodes and sums its rows and columns over all of
 * K alone).
 *
 * Here the threads step through K together in chunks of MXE_IW_KCHUNK: in one phase
 * they decode the chunk of every row of A and column of B into shared panels (each row
 * once, not once per tile that needs it), meet at the pool's barrier, then each sums
 * the chunk into its tiles' outputs, and they meet again. Each output carries its exact
 * running sum as a double: mxe_dot_try_double() adds the chunk to it only when no
 * addition rounds, so the double stays the exact sum, rounded once at the end; an
 * output whose sum stops being a double (or meets a NaN or Inf) is redone on the
 * general path with C. Either way the bits are the intrawave path's.
 *
 * It runs for EXACT operations whose rounding chunk is all of K (GEMM, TMATMULMX),
 * float classes, with more than one chunk of K; mxe_engine_stats() counts what it did.
 */
#include <stdlib.h>
#include <string.h>

#include "mxe_gemm.h"
#include "mxe_xacc.h"
#include "mxe_pool.h"

#define MXE_IW_KCHUNK	256
#define MXE_IW_TILE	32

struct iw_job {
	const struct mxe_op *op;
	size_t nchunks, tiles_m, tiles_n, rows_per_task;
	double *apanel, *bpanel;	/* M x KC, N x KC: the current chunk */
	double *sum;			/* M x N running exact sums */
	uint8_t *inexact;		/* M x N: redo on the general path */
	int failed;
};

static struct mxe_engine_stats iw_stats;

static unsigned iw_decode_tasks(const struct iw_job *j)
{
	return (unsigned)((j->op->d.m + j->op->d.n + j->rows_per_task - 1) / j->rows_per_task);
}

/* Phases: decode chunk 0, sum chunk 0, decode chunk 1, ..., then finish. */
static unsigned iw_phase_tasks(void *arg, unsigned phase)
{
	struct iw_job *j = arg;

	if (phase < 2 * j->nchunks)
		return phase % 2 ? (unsigned)(j->tiles_m * j->tiles_n) : iw_decode_tasks(j);
	if (phase == 2 * j->nchunks)
		return (unsigned)(j->tiles_m * j->tiles_n);
	return 0;
}

/* Rows @r0.. of A then B (one index space), chunk @c, into the panels. */
static void iw_decode(struct iw_job *j, size_t c, unsigned task)
{
	const struct mxe_op *op = j->op;
	size_t k = op->d.k, k0 = c * MXE_IW_KCHUNK, n = k - k0 < MXE_IW_KCHUNK ? k - k0 : MXE_IW_KCHUNK;
	for (size_t r = (size_t)task * j->rows_per_task;
	     r < (size_t)(task + 1) * j->rows_per_task && r < op->d.m + op->d.n; r++) {
		int side = r >= op->d.m;
		size_t idx = side ? r - op->d.m : r;

		mxe_op_row_range(op, side, idx, k0, n,
				 (side ? j->bpanel : j->apanel) + idx * MXE_IW_KCHUNK);
	}
}

static void iw_sum(struct iw_job *j, size_t c, unsigned task)
{
	const struct mxe_op *op = j->op;
	size_t k = op->d.k, k0 = c * MXE_IW_KCHUNK, n = k - k0 < MXE_IW_KCHUNK ? k - k0 : MXE_IW_KCHUNK;
	size_t i0 = (task / j->tiles_n) * MXE_IW_TILE, j0 = (task % j->tiles_n) * MXE_IW_TILE;

	for (size_t i = i0; i < i0 + MXE_IW_TILE && i < op->d.m; i++) {
		for (size_t jj = j0; jj < j0 + MXE_IW_TILE && jj < op->d.n; jj++) {
			size_t o = i * op->d.n + jj;

			if (!j->inexact[o] &&
			    !mxe_dot_try_double(j->apanel + i * MXE_IW_KCHUNK,
						j->bpanel + jj * MXE_IW_KCHUNK, n, j->sum[o], &j->sum[o]))
				j->inexact[o] = 1;
		}
	}
}

static void iw_finish(struct iw_job *j, unsigned task)
{
	const struct mxe_op *op = j->op;
	size_t i0 = (task / j->tiles_n) * MXE_IW_TILE, j0 = (task % j->tiles_n) * MXE_IW_TILE;

	for (size_t i = i0; i < i0 + MXE_IW_TILE && i < op->d.m; i++) {
		for (size_t jj = j0; jj < j0 + MXE_IW_TILE && jj < op->d.n; jj++) {
			size_t o = i * op->d.n + jj;

			if (!j->inexact[o]) {
				mxe_op_store_d(op, i, jj, mxe_round_to_accum(j->sum[o], op->d.type_d));
				continue;
			}
			__atomic_add_fetch(&iw_stats.redone, 1, __ATOMIC_RELAXED);
			if (mxe_exact_output(op, i, jj))
				j->failed = 1;
		}
	}
}

static void iw_task(void *arg, unsigned phase, unsigned task)
{
	struct iw_job *j = arg;

	if (phase == 2 * j->nchunks)
		iw_finish(j, task);
	else if (phase % 2)
		iw_sum(j, phase / 2, task);
	else
		iw_decode(j, phase / 2, task);
}

static const struct mxe_pool_job_ops iw_ops = {
	.phase_tasks = iw_phase_tasks,
	.task = iw_task,
};

int mxe_interwave_applies(const struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = &op->d;

	return d->sched == MXE_SCHED_INTERWAVE && d->accum == MXE_ACCUM_EXACT && !op->has_plan &&
	       op->cls == MXE_CLASS_FLOAT && op->k_chunk == d->k && d->k > MXE_IW_KCHUNK;
}

int mxe_interwave_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = &op->d;
	struct iw_job j = { .op = op };
	size_t outs = (size_t)d->m * d->n;

	if (!mxe_interwave_applies(op))
		return 1;
	j.nchunks = (d->k + MXE_IW_KCHUNK - 1) / MXE_IW_KCHUNK;
	j.tiles_m = (d->m + MXE_IW_TILE - 1) / MXE_IW_TILE;
	j.tiles_n = (d->n + MXE_IW_TILE - 1) / MXE_IW_TILE;
	j.rows_per_task = 16;
	j.apanel = malloc((d->m + d->n) * MXE_IW_KCHUNK * sizeof(double));
	j.sum = malloc(outs * sizeof(double));
	j.inexact = calloc(outs, 1);
	if (!j.apanel || !j.sum || !j.inexact) {
		free(j.apanel);
		free(j.sum);
		free(j.inexact);
		return MXE_ENGINE_ENOMEM;
	}
	j.bpanel = j.apanel + d->m * MXE_IW_KCHUNK;
	for (size_t i = 0; i < d->m; i++)	/* the running sums start at C (or -0) */
		for (size_t jj = 0; jj < d->n; jj++)
			j.sum[i * d->n + jj] = (d->flags & MXA_GEMM_F_ACCUMULATE) ?
					       mxe_op_load_c(op, i, jj) : -0.0;
	mxe_pool_run(eng, d->nthreads, &iw_ops, &j);
	__atomic_add_fetch(&iw_stats.interwave_ops, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&iw_stats.k_chunks, j.nchunks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&iw_stats.barriers, 2 * j.nchunks, __ATOMIC_RELAXED);
	free(j.apanel);
	free(j.sum);
	free(j.inexact);
	return j.failed ? MXE_ENGINE_ENOMEM : 0;
}

void mxe_engine_stats(struct mxe_engine_stats *st)
{
	st->intrawave_ops = __atomic_load_n(&iw_stats.intrawave_ops, __ATOMIC_RELAXED);
	st->interwave_ops = __atomic_load_n(&iw_stats.interwave_ops, __ATOMIC_RELAXED);
	st->k_chunks = __atomic_load_n(&iw_stats.k_chunks, __ATOMIC_RELAXED);
	st->barriers = __atomic_load_n(&iw_stats.barriers, __ATOMIC_RELAXED);
	st->redone = __atomic_load_n(&iw_stats.redone, __ATOMIC_RELAXED);
}

void mxe_stats_count_intrawave(void)
{
	__atomic_add_fetch(&iw_stats.intrawave_ops, 1, __ATOMIC_RELAXED);
}
