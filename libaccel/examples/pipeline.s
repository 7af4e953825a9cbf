; pipeline.s - a two-stage TMA + WGMMA pipeline, written by hand (accel-run(1)).
;
;   D (64 x 64, f32) = A (64 x K, f16) x B (64 x K, f16)^T,  K = 256
;
; Stage s of SRAM holds one K step (16 f16) of A and B, loaded by TMA onto mbarrier s.
; While the WGMMA of one stage runs, TMA fills the other: after each WGMMA,
; "wgmma.wait_group 1" waits only for the previous WGMMA, whose stage is then free.
;
;   accel-run pipeline.s --in a.bin@A --in b.bin@B --out d.bin@D
.equ K, 256
.equ STAGE_BYTES, 4096          ; A 64 x 16 f16 (2 KiB), then B 64 x 16 f16
.equ D_SRAM, 0x10000
.equ MBAR0, 0x30000
.equ MBAR1, 0x30010
.buffer A, 32K
.buffer B, 32K
.buffer D, 16K
.tmap tA, addr=A, elem=2, dims={K, 64}, box={16, 64}
.tmap tB, addr=B, elem=2, dims={K, 64}, box={16, 64}
.tmap tD, addr=D, elem=4, dims={64, 64}, box={64, 64}

    MBAR_INIT MBAR0, 1
    MBAR_INIT MBAR1, 1
    ; prologue: stage 0 gets K step 0
    MBAR_ARRIVE MBAR0, STAGE_BYTES
    TMA_LOAD 0, [tA, {0, 0}], MBAR0
    TMA_LOAD 2048, [tB, {0, 0}], MBAR0
    REG_SET r1, 16                      ; r1: K of the next load; r2: mbarrier parity
k_loop: LOOP 8                          ; K / 32: two K steps a trip
    ; stage 0: compute, then refill stage 1 with the next K step
    mbarrier.try_wait.parity MBAR0, r2;
    WGMMA.ACC f32, f16, f16, 64, D_SRAM, 0, 2048
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 1;
    MBAR_ARRIVE MBAR1, STAGE_BYTES
    TMA_LOAD STAGE_BYTES, [tA, {r1, 0}], MBAR1
    TMA_LOAD STAGE_BYTES+2048, [tB, {r1, 0}], MBAR1
    REG_ADD r1, r1+16
    ; stage 1: compute, then refill stage 0 (past K the box is zero-filled: harmless)
    mbarrier.try_wait.parity MBAR1, r2;
    WGMMA.ACC f32, f16, f16, 64, D_SRAM, STAGE_BYTES, STAGE_BYTES+2048
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 1;
    MBAR_ARRIVE MBAR0, STAGE_BYTES
    TMA_LOAD 0, [tA, {r1, 0}], MBAR0
    TMA_LOAD 2048, [tB, {r1, 0}], MBAR0
    REG_ADD r1, r1+16
    REG_ADD r2, r2+1
ENDLOOP k_loop
    wgmma.wait_group.sync.aligned 0;
    TMA_STORE [tD, {0, 0}], D_SRAM
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
