# bench.mk - benchmarks (never part of make check). Included by the top-level Makefile.
#   make bench          every benchmark: a table of ratios, build/bench/*.csv, PNG plots
#   make bench-submit   job submission (guest) against null_blk through io_uring
#   make bench-model    the cycle model against the H200 (model.csv, model-scatter.png)
#   make bench-cluster  grids and 2x1 clusters with TMA multicast (cluster.csv)
#   make bench-gemm     accel_gemm end to end, pipelined vs serial TMA + WGMMA, TMA
#                       bandwidth, MX GEMV (guest), against the engine alone and memcpy
#                       (host)
# bench-engine comes from qemu-device/engine/engine.mk.

BENCH_SUBMIT := $(BUILD)/bin/bench-submit
GUEST_PROGS += $(BENCH_SUBMIT)

$(BENCH_SUBMIT): bench/bench-submit.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

BENCH_MODEL := $(BUILD)/bin/bench-model
GUEST_PROGS += $(BENCH_MODEL)

$(BENCH_MODEL): bench/bench-model.c bench/bench_job.h bench/bench_pipe.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

BENCH_CLUSTER := $(BUILD)/bin/bench-cluster
GUEST_PROGS += $(BENCH_CLUSTER)

$(BENCH_CLUSTER): bench/bench-cluster.c bench/bench_job.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS) -lm

BENCH_GEMM := $(BUILD)/bin/bench-gemm
GUEST_PROGS += $(BENCH_GEMM)
BENCH_HOST := $(BUILD)/bench/bench-host

$(BENCH_GEMM): bench/bench-gemm.c bench/bench_gemv.h bench/bench_runs.h bench/bench_job.h bench/bench_pipe.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

$(BENCH_HOST): bench/bench-host.c bench/bench_fma.h bench/bench_gemv.h bench/bench_runs.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -o $@ $< $(LIBACCEL_LIB) -lm -pthread

BENCH_SECONDS ?= 1
# accel_gemm end to end: M N K (MX-FP8); the device's engine has QEMU "engine-threads" (2) threads
BENCH_GEMM_SHAPE ?= 2048 2048 2048
BENCH_REPS ?= 3
# TMA's 32 MiB and the GEMVs take 0.2-10 ms a run, in which this 2-vCPU host's other
# tenants and threads move the time by up to 3x: the best of more runs, for them and for
# their host references (memcpy, the engine alone) alike; and every row of bench-gemm's
# programs and GEMVs, and their references, runs on until it took a quarter second
# (bench/bench_runs.h).
BENCH_SHORT_REPS ?= 10
# Each part prints the table when run alone; make bench prints it once, at the end.
BENCH_REPORT = $(if $(filter bench,$(MAKECMDGOALS)),,@bench/report.sh $(BUILD)/bench)

.PHONY: bench bench-submit bench-gemm bench-model bench-cluster
# Grids and clusters: a BF16 GEMM as a grid of 64 x 64 tiles, with and without 2x1
# clusters that multicast B, and as one-instance jobs in a row -> cluster.csv (bytes the
# device's TMA read, time, speed-up over the serial jobs).
bench-cluster: $(GUEST_READY)
	@mkdir -p $(BUILD)/bench
	@$(BOOT_GUEST) --log $(BUILD)/bench/cluster-console.log \
		--run "/bin/bench-cluster --reps $(BENCH_REPS)" >$(BUILD)/bench/cluster.csv
	$(BENCH_REPORT)

# The cycle model against the H200: bench/h200/pipeline.cu's kernels as MXA programs
# under timing=h200 -> model.csv (bench/model.py) and model-scatter.png.
bench-model: $(GUEST_READY)
	@mkdir -p $(BUILD)/bench
	@$(BOOT_GUEST) --log $(BUILD)/bench/model-console.log --device-args timing=h200 \
		--run "/bin/bench-model" >$(BUILD)/bench/model-raw.csv
	@bench/model.py --csv $(BUILD)/bench/model-raw.csv $(BUILD)/bench
	$(BENCH_REPORT)

bench-gemm: $(BENCH_HOST) $(GUEST_READY)
	@mkdir -p $(BUILD)/bench
	@$(BOOT_GUEST) --log $(BUILD)/bench/gemm-console.log \
		--run "/bin/bench-gemm e2e $(BENCH_GEMM_SHAPE) --reps $(BENCH_REPS)" \
		--run "/bin/bench-gemm pipeline --reps $(BENCH_REPS)" \
		--run "/bin/bench-gemm tma --reps $(BENCH_SHORT_REPS)" \
		--run "/bin/bench-gemm gemv --reps $(BENCH_SHORT_REPS)" \
		--run "/bin/accel-llm --csv" --run "/bin/accel-llm --csv --numerics fast" \
		--run "/bin/accel-llm --csv --weights nvfp4" \
		--run "/bin/accel-llm --csv --weights nvfp4 --numerics fast" \
		>$(BUILD)/bench/gemm-raw.csv
	@$(BENCH_HOST) $(BENCH_GEMM_SHAPE) --threads 2 --reps $(BENCH_REPS) \
		--short-reps $(BENCH_SHORT_REPS) >$(BUILD)/bench/host-raw.csv
	@bench/ratios.py $(BUILD)/bench
	$(BENCH_REPORT)

bench-submit: $(GUEST_READY)
	@mkdir -p $(BUILD)/bench
	@$(BOOT_GUEST) --log $(BUILD)/bench/submit-console.log \
		--run "/bin/bench-submit --seconds $(BENCH_SECONDS)" >$(BUILD)/bench/submit.csv
	$(BENCH_REPORT)

# make bench runs the engine on 256 ... 4096 cubes (make bench-engine: 512 ... 2048).
BENCH_ENGINE_SIZES ?= 256,512,1024,2048,4096
bench: bench-submit bench-gemm bench-model bench-cluster $(ENGINE_BENCH)
	@mkdir -p $(BUILD)/bench
	$(ENGINE_BENCH) --csv $(BUILD)/bench/engine.csv --sizes $(BENCH_ENGINE_SIZES) \
		$(BENCH_ENGINE_FLAGS)
	@# the MX types in EXACT (the device's default numerics) and FAST on the same data
	$(ENGINE_BENCH) --csv $(BUILD)/bench/engine-exact.csv --exact-csv $(BUILD)/bench/exact.csv \
		--accum exact,fast --types mxfp8,mxfp6,mxfp4,mxint8 --sizes 1024,2048 \
		--threads 2 --reps 3
	@# Default OpenBLAS 0.3.21 picks its kernels by CPU model: AVX2 (Haswell) ones on a
	@# Zen 5, which it does not know, AVX-512 (Cooperlake) ones on a Zen 4. Where the
	@# CPU has AVX-512, also compare like with like:
	@# both on AVX2, and both on AVX-512 (OpenBLAS forced to its SkylakeX kernels);
	@# the small-integer MX types as a Zen 3 runs them (int8 panels without VNNI), and
	@# the MX types' EXACT over FAST there (exact-avx2.csv).
	@if grep -qw avx512bw /proc/cpuinfo; then \
		MXA_ENGINE_SIMD=avx2 OPENBLAS_CORETYPE=Haswell $(ENGINE_BENCH) --sizes 2048 \
			--csv $(BUILD)/bench/engine-both-avx2.csv $(BENCH_ENGINE_FLAGS) && \
		OPENBLAS_CORETYPE=SkylakeX $(ENGINE_BENCH) --sizes 2048 \
			--csv $(BUILD)/bench/engine-both-avx512.csv $(BENCH_ENGINE_FLAGS) && \
		MXA_ENGINE_SIMD=avx2 OPENBLAS_CORETYPE=Haswell $(ENGINE_BENCH) \
			--csv $(BUILD)/bench/engine-exact-avx2.csv --accum exact,fast \
			--types mxfp6,mxfp4,mxint8 --sizes 1024,2048 --threads 2 --reps 3 && \
		MXA_ENGINE_SIMD=avx2 $(ENGINE_BENCH) --exact-csv $(BUILD)/bench/exact-avx2.csv \
			--accum exact,fast --types mxfp8,mxfp6,mxfp4,mxint8 --sizes 1024,2048 \
			--threads 2 --reps 3; \
	else rm -f $(BUILD)/bench/engine-both-avx2.csv $(BUILD)/bench/engine-both-avx512.csv \
		$(BUILD)/bench/engine-exact-avx2.csv $(BUILD)/bench/exact-avx2.csv; fi
	@bench/report.sh $(BUILD)/bench
