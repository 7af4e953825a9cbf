#!/bin/sh
# On an H200 (the project's device tool): ./run.sh OUTDIR [ncases [seed]]
# Builds the probe for sm_90a and writes OUTDIR/wgmma_desc.bin.
set -e
here=$(dirname "$0")
bin=$(mktemp -d)/wgmma_desc
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o "$bin" "$here/wgmma_desc.cu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$bin" "$1/wgmma_desc.bin" "${2:-256}" "${3:-1}"
