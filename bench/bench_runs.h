/* SPDX-License-Identifier: MIT */
/*
 * bench_runs.h - how many times make bench runs a row whose run is short, in the guest
 * (bench-gemm's programs and GEMVs) as for its host references (bench-host's memcpys
 * and the engine alone): at least the --reps asked, then more until the runs took
 * BENCH_MIN_NS together (at most BENCH_MAX_RUNS). A 4096^2 GEMV or TMA's 32 MiB take
 * 0.2-3 ms a run: on a busy 2-vCPU host the best of ten is a few runs' luck (one GEMV
 * row's best moved 0.63 -> 1.09 ms between two boots).
 */
#ifndef BENCH_RUNS_H
#define BENCH_RUNS_H

#define BENCH_MIN_NS	2.5e8
#define BENCH_MAX_RUNS	500

/* 1 while a row that has had @done runs taking @spent_ns should run once more. */
static inline int bench_more_runs(int done, int reps, double spent_ns)
{
	return done < reps || (spent_ns < BENCH_MIN_NS && done < BENCH_MAX_RUNS);
}

#endif /* BENCH_RUNS_H */
