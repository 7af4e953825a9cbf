#!/bin/sh
# On an H200 (the project's device tool): bench/h200/run.sh OUTDIR -> OUTDIR/timing.csv
set -e
here=$(dirname "$0")
bin=$(mktemp -d)/mxa-timing
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o "$bin" "$here/timing.cu"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$bin" "$1/timing.csv"
cat "$1/timing.csv"
