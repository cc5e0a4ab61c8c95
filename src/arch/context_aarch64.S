/*
 * context_aarch64.S — context switch for aarch64, AAPCS64.
 * Frame (from the saved sp upwards, 176 bytes, sp 16-byte aligned):
 *   0: x19 x20  16: x21 x22  32: x23 x24  48: x25 x26  64: x27 x28
 *  80: x29 x30  96: d8 d9  112: d10 d11  128: d12 d13  144: d14 d15
 * 160: FPCR    168: unused
 *
 * Writing FPCR is slow (it may serialise the pipeline) and two contexts
 * nearly always hold the same value: the old context's FPCR stays in x9
 * (x19 across the callback, saved in the frame already) and is written
 * only where the new frame differs.
 */
    .text

.macro SAVE_FRAME
    sub     sp, sp, #176
    stp     x19, x20, [sp, #0]
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x28, [sp, #64]
    stp     x29, x30, [sp, #80]
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    mrs     x9, fpcr
    str     x9, [sp, #160]
    mov     x10, sp
    str     x10, [x0]
    ldr     x10, [x1]
    mov     sp, x10
.endm

/* void myr_context_switch_cb(myr_context *from, const myr_context *to,
 *                            void (*cb)(void *), void *arg) */
    .globl  myr_context_switch_cb
    .hidden myr_context_switch_cb
    .type   myr_context_switch_cb, %function
    .p2align 4
myr_context_switch_cb:
    SAVE_FRAME
    mov     x19, x9
    mov     x0, x3
    blr     x2
    mov     x9, x19
    b       .Lrestore
    .size   myr_context_switch_cb, .-myr_context_switch_cb

/* void myr_context_switch(myr_context *from, const myr_context *to) */
    .globl  myr_context_switch
    .hidden myr_context_switch
    .type   myr_context_switch, %function
    .p2align 4
myr_context_switch:
    SAVE_FRAME
.Lrestore:  /* x9 = FPCR now in force */
    ldr     x10, [sp, #160]
    cmp     x9, x10
    b.eq    1f
    msr     fpcr, x10
1:
    ldp     x19, x20, [sp, #0]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x28, [sp, #64]
    ldp     x29, x30, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    add     sp, sp, #176
    ret
    .size   myr_context_switch, .-myr_context_switch

/* First code a new context runs: x19 = entry, x20 = arg. */
    .globl  myr_context_trampoline
    .hidden myr_context_trampoline
    .type   myr_context_trampoline, %function
    .p2align 4
myr_context_trampoline:
    .cfi_startproc
    .cfi_undefined x30
    mov     x0, x20
    blr     x19
    brk     #0
    .cfi_endproc
    .size   myr_context_trampoline, .-myr_context_trampoline

    .section .note.GNU-stack,"",%progbits
