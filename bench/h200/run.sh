#!/bin/sh
# On an H200 (the project's device tool): bench/h200/run.sh OUTDIR [timing|pipeline|contention|wakeup]...
# -> OUTDIR/timing.csv (timing.cu's probes), OUTDIR/pipeline.csv (pipeline.cu's GEMMs),
# OUTDIR/contention.csv (contention.cu: SMs loading at once), OUTDIR/wakeup.csv (wakeup.cu:
# what a wait costs);
# timing and pipeline when no probe is named.
set -e
here=$(dirname "$0")
out=$1
shift
bin=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for p in ${*:-timing pipeline}; do
	nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o "$bin/$p" \
		"$here/$p.cu" -lcuda
	"$bin/$p" "$out/$p.csv"
	cat "$out/$p.csv"
done
