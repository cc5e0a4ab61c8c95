/*
 * helpers_x86_64.S — register-level probes for the arch tests, x86_64
 * System V (see arch_test.h for what each one promises).
 */
    .text

/* uint64_t myr_test_call_keeping_regs(const uint64_t *values, void (*fn)(void),
 *                                     void *a0, void *a1, void *a2, void *a3)
 * values[0..5] go to rbx, rbp, r12, r13, r14, r15 (bits 0..5 of the result). */
    .globl  myr_test_call_keeping_regs
    .type   myr_test_call_keeping_regs, @function
    .p2align 4
myr_test_call_keeping_regs:
    .cfi_startproc
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r12, 0
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r13, 0
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r14, 0
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r15, 0
    pushq   %rdi                /* values; 7 pushes leave rsp 16-aligned */
    .cfi_adjust_cfa_offset 8
    movq    %rsi, %rax
    movq    %rdi, %r10
    movq    %rdx, %rdi
    movq    %rcx, %rsi
    movq    %r8, %rdx
    movq    %r9, %rcx
    movq    0(%r10), %rbx
    movq    8(%r10), %rbp
    movq    16(%r10), %r12
    movq    24(%r10), %r13
    movq    32(%r10), %r14
    movq    40(%r10), %r15
    callq   *%rax
    popq    %r10
    .cfi_adjust_cfa_offset -8
    xorl    %eax, %eax
    cmpq    0(%r10), %rbx
    je      1f
    orl     $1, %eax
1:  cmpq    8(%r10), %rbp
    je      2f
    orl     $2, %eax
2:  cmpq    16(%r10), %r12
    je      3f
    orl     $4, %eax
3:  cmpq    24(%r10), %r13
    je      4f
    orl     $8, %eax
4:  cmpq    32(%r10), %r14
    je      5f
    orl     $16, %eax
5:  cmpq    40(%r10), %r15
    je      6f
    orl     $32, %eax
6:  popq    %r15
    .cfi_adjust_cfa_offset -8
    popq    %r14
    .cfi_adjust_cfa_offset -8
    popq    %r13
    .cfi_adjust_cfa_offset -8
    popq    %r12
    .cfi_adjust_cfa_offset -8
    popq    %rbx
    .cfi_adjust_cfa_offset -8
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_endproc
    .size   myr_test_call_keeping_regs, .-myr_test_call_keeping_regs

/* void *myr_test_stack_pointer(void) */
    .globl  myr_test_stack_pointer
    .type   myr_test_stack_pointer, @function
    .p2align 4
myr_test_stack_pointer:
    .cfi_startproc
    leaq    8(%rsp), %rax
    ret
    .cfi_endproc
    .size   myr_test_stack_pointer, .-myr_test_stack_pointer

/* void myr_test_aligned_stack_store(void): on entry rsp is 8 below a
 * 16-byte boundary, so rsp - 24 is 16-aligned and movaps may store there. */
    .globl  myr_test_aligned_stack_store
    .type   myr_test_aligned_stack_store, @function
    .p2align 4
myr_test_aligned_stack_store:
    .cfi_startproc
    subq    $24, %rsp
    .cfi_adjust_cfa_offset 24
    xorps   %xmm0, %xmm0
    movaps  %xmm0, (%rsp)
    addq    $24, %rsp
    .cfi_adjust_cfa_offset -24
    ret
    .cfi_endproc
    .size   myr_test_aligned_stack_store, .-myr_test_aligned_stack_store

/* uint64_t myr_test_fp_control_get(void) */
    .globl  myr_test_fp_control_get
    .type   myr_test_fp_control_get, @function
    .p2align 4
myr_test_fp_control_get:
    .cfi_startproc
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movzwl  4(%rsp), %eax
    shlq    $32, %rax
    movl    (%rsp), %ecx
    orq     %rcx, %rax
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_endproc
    .size   myr_test_fp_control_get, .-myr_test_fp_control_get

/* void myr_test_fp_control_set(uint64_t control) */
    .globl  myr_test_fp_control_set
    .type   myr_test_fp_control_set, @function
    .p2align 4
myr_test_fp_control_set:
    .cfi_startproc
    movq    %rdi, -8(%rsp)
    ldmxcsr -8(%rsp)
    fldcw   -4(%rsp)
    ret
    .cfi_endproc
    .size   myr_test_fp_control_set, .-myr_test_fp_control_set

    .section .note.GNU-stack,"",@progbits
