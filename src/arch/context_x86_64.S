/*
 * context_x86_64.S — context switch for x86_64, System V ABI.
 * Frame (from the saved sp upwards, 64 bytes, sp 16-byte aligned):
 *   0: MXCSR (4 bytes)   4: x87 control word (2 bytes)   6: unused
 *   8: r15  16: r14  24: r13  32: r12  40: rbx  48: rbp  56: return address
 * The frame keeps the saved sp 16-byte aligned, so the callback of
 * myr_context_switch_cb can be called directly on the new stack.
 */
    .text

/* void myr_context_switch_cb(myr_context *from, const myr_context *to,
 *                            void (*cb)(void *), void *arg) */
    .globl  myr_context_switch_cb
    .hidden myr_context_switch_cb
    .type   myr_context_switch_cb, @function
    .p2align 4
myr_context_switch_cb:
    .cfi_startproc
    pushq   %rbp
    pushq   %rbx
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    subq    $8, %rsp
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movq    %rsp, (%rdi)
    movq    (%rsi), %rsp
    movq    %rcx, %rdi
    callq   *%rdx
    jmp     .Lrestore
    .cfi_endproc
    .size   myr_context_switch_cb, .-myr_context_switch_cb

/* void myr_context_switch(myr_context *from, const myr_context *to) */
    .globl  myr_context_switch
    .hidden myr_context_switch
    .type   myr_context_switch, @function
    .p2align 4
myr_context_switch:
    .cfi_startproc
    pushq   %rbp
    pushq   %rbx
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    subq    $8, %rsp
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movq    %rsp, (%rdi)
    movq    (%rsi), %rsp
.Lrestore:
    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
    .cfi_endproc
    .size   myr_context_switch, .-myr_context_switch

/* First code a new context runs: r12 = entry, r13 = arg (set up by
 * myr_context_make). The undefined return address tells debuggers and
 * unwinders that this is the outermost frame of a ULT stack. */
    .globl  myr_context_trampoline
    .hidden myr_context_trampoline
    .type   myr_context_trampoline, @function
    .p2align 4
myr_context_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq    %r13, %rdi
    callq   *%r12
    ud2
    .cfi_endproc
    .size   myr_context_trampoline, .-myr_context_trampoline

    .section .note.GNU-stack,"",@progbits
