#!/bin/sh
# On an H200 (the project's device tool): bench/h200/run.sh OUTDIR [timing|pipeline|contention|wakeup]...
# -> OUTDIR/timing.csv (timing.cu's probes), OUTDIR/pipeline.csv (pipeline.cu's GEMMs),
# OUTDIR/contention.csv (contention.cu: SMs loading at once), OUTDIR/wakeup.csv (wakeup.cu:
# what a wait costs), OUTDIR/phases.csv (pipeline.cu --phases: where each step's time goes);
# timing and pipeline when no probe is named.
set -e
here=$(dirname "$0")
out=$1
shift
bin=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for p in ${*:-timing pipeline}; do
	src=$p flag=
	[ "$p" = phases ] && src=pipeline flag=--phases
	[ -x "$bin/$src" ] || nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
		-o "$bin/$src" "$here/$src.cu" -lcuda
	"$bin/$src" $flag "$out/$p.csv"
	cat "$out/$p.csv"
done
