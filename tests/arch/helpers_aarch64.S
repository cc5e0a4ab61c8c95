/*
 * helpers_aarch64.S — register-level probes for the arch tests, aarch64
 * AAPCS64 (see arch_test.h for what each one promises).
 */
    .text

/* uint64_t myr_test_call_keeping_regs(const uint64_t *values, void (*fn)(void),
 *                                     void *a0, void *a1, void *a2, void *a3)
 * values[0..10] go to x19..x29 (bits 0..10 of the result), values[11..18]
 * to d8..d15 (bits 11..18).
 * Frame: 0: x29 x30  16: x19 .. x28  96: d8 .. d15  160: values  168: unused */
    .globl  myr_test_call_keeping_regs
    .type   myr_test_call_keeping_regs, %function
    .p2align 2
myr_test_call_keeping_regs:
    .cfi_startproc
    stp     x29, x30, [sp, #-176]!
    .cfi_def_cfa_offset 176
    .cfi_offset x29, -176
    .cfi_offset x30, -168
    mov     x29, sp
    stp     x19, x20, [sp, #16]
    stp     x21, x22, [sp, #32]
    stp     x23, x24, [sp, #48]
    stp     x25, x26, [sp, #64]
    stp     x27, x28, [sp, #80]
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    str     x0, [sp, #160]
    mov     x9, x0
    mov     x10, x1
    mov     x0, x2
    mov     x1, x3
    mov     x2, x4
    mov     x3, x5
    ldp     x19, x20, [x9, #0]
    ldp     x21, x22, [x9, #16]
    ldp     x23, x24, [x9, #32]
    ldp     x25, x26, [x9, #48]
    ldp     x27, x28, [x9, #64]
    ldr     x29, [x9, #80]
    ldr     d8, [x9, #88]
    ldr     d9, [x9, #96]
    ldr     d10, [x9, #104]
    ldr     d11, [x9, #112]
    ldr     d12, [x9, #120]
    ldr     d13, [x9, #128]
    ldr     d14, [x9, #136]
    ldr     d15, [x9, #144]
    blr     x10
    ldr     x9, [sp, #160]
    mov     x0, #0

.macro CHECK_X reg, off, bit
    ldr     x10, [x9, #\off]
    cmp     \reg, x10
    cset    x11, ne
    orr     x0, x0, x11, lsl #\bit
.endm
.macro CHECK_D reg, off, bit
    fmov    x12, \reg
    ldr     x10, [x9, #\off]
    cmp     x12, x10
    cset    x11, ne
    orr     x0, x0, x11, lsl #\bit
.endm
    CHECK_X x19, 0, 0
    CHECK_X x20, 8, 1
    CHECK_X x21, 16, 2
    CHECK_X x22, 24, 3
    CHECK_X x23, 32, 4
    CHECK_X x24, 40, 5
    CHECK_X x25, 48, 6
    CHECK_X x26, 56, 7
    CHECK_X x27, 64, 8
    CHECK_X x28, 72, 9
    CHECK_X x29, 80, 10
    CHECK_D d8, 88, 11
    CHECK_D d9, 96, 12
    CHECK_D d10, 104, 13
    CHECK_D d11, 112, 14
    CHECK_D d12, 120, 15
    CHECK_D d13, 128, 16
    CHECK_D d14, 136, 17
    CHECK_D d15, 144, 18

    ldp     x19, x20, [sp, #16]
    ldp     x21, x22, [sp, #32]
    ldp     x23, x24, [sp, #48]
    ldp     x25, x26, [sp, #64]
    ldp     x27, x28, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    ldp     x29, x30, [sp], #176
    .cfi_def_cfa_offset 0
    ret
    .cfi_endproc
    .size   myr_test_call_keeping_regs, .-myr_test_call_keeping_regs

/* void *myr_test_stack_pointer(void) */
    .globl  myr_test_stack_pointer
    .type   myr_test_stack_pointer, %function
    .p2align 2
myr_test_stack_pointer:
    mov     x0, sp
    ret
    .size   myr_test_stack_pointer, .-myr_test_stack_pointer

/* void myr_test_aligned_stack_store(void): sp itself must stay 16-aligned
 * (the kernel enables SP alignment checking), so an access through it
 * faults otherwise. */
    .globl  myr_test_aligned_stack_store
    .type   myr_test_aligned_stack_store, %function
    .p2align 2
myr_test_aligned_stack_store:
    sub     sp, sp, #16
    stp     xzr, xzr, [sp]
    add     sp, sp, #16
    ret
    .size   myr_test_aligned_stack_store, .-myr_test_aligned_stack_store

/* uint64_t myr_test_fp_control_get(void) */
    .globl  myr_test_fp_control_get
    .type   myr_test_fp_control_get, %function
    .p2align 2
myr_test_fp_control_get:
    mrs     x0, fpcr
    ret
    .size   myr_test_fp_control_get, .-myr_test_fp_control_get

/* void myr_test_fp_control_set(uint64_t control) */
    .globl  myr_test_fp_control_set
    .type   myr_test_fp_control_set, %function
    .p2align 2
myr_test_fp_control_set:
    msr     fpcr, x0
    ret
    .size   myr_test_fp_control_set, .-myr_test_fp_control_set

    .section .note.GNU-stack,"",%progbits
