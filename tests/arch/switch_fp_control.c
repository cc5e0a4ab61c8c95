/* switch_fp_control.c — the floating-point control state (rounding mode
 * and friends) belongs to a context: a switch saves and restores it, and a
 * new context starts from the default state. Usage: switch_fp_control CASE.
 *
 * x86_64 keeps the state in two registers, MXCSR (SSE arithmetic) and the
 * x87 control word (long double); aarch64 in FPCR. */
#include <fenv.h>

#include "arch_test.h"

#if defined(__x86_64__)
/* MXCSR: all exceptions masked; rounding down; flush to zero.
 * x87: all exceptions masked; rounding toward zero; 53-bit precision. */
#define ORIGIN_CONTROL ((0x0E7Full << 32) | 0x1F80u | 0x2000u | 0x8000u)
/* MXCSR: rounding up. x87: rounding down; 24-bit precision. */
#define PEER_CONTROL ((0x047Full << 32) | 0x1F80u | 0x4000u)
/* What myr_context_make promises: everything masked, round to nearest,
 * x87 extended precision. MXCSR bits 0-5 are sticky exception flags, not
 * control. */
#define DEFAULT_CONTROL ((0x037Full << 32) | 0x1F80u)
#define STATUS_BITS 0x3Full
#elif defined(__aarch64__)
/* FPCR: rounding toward minus infinity (RMode 10), flush to zero (FZ). */
#define ORIGIN_CONTROL ((2ull << 22) | (1ull << 24))
/* FPCR: rounding toward plus infinity (RMode 01), default NaN (DN). */
#define PEER_CONTROL ((1ull << 22) | (1ull << 25))
#define DEFAULT_CONTROL 0ull
#define STATUS_BITS 0ull
#endif

static myr_context origin, peer;

static uint64_t control_now(void)
{
    return myr_test_fp_control_get() & ~STATUS_BITS;
}

static void check_control(const char *where, uint64_t expected)
{
    uint64_t now = control_now();
    if (now != expected) {
        fprintf(stderr, "%s: FP control is %#llx, expected %#llx\n", where,
                (unsigned long long)now, (unsigned long long)expected);
        CHECK(now == expected);
    }
}

/* ---- a switch restores the rounding mode ----------------------------- */

/* 1/3 rounded by the current mode. Out of line and reading volatiles, so
 * the compiler cannot move the division across a fesetround call (it
 * does not treat the rounding mode as an input of arithmetic). */
static volatile double one = 1.0, three = 3.0;
static volatile long double one_l = 1.0L, three_l = 3.0L;

__attribute__((noinline)) static double third(void)
{
    return one / three;
}

__attribute__((noinline)) static long double third_l(void)
{
    return one_l / three_l;
}

static double peer_third;
static long double peer_third_l;

static void rounding_peer(void *arg)
{
    (void)arg;
    CHECK(fegetround() == FE_TONEAREST);
    CHECK(fesetround(FE_UPWARD) == 0);
    peer_third = third();
    peer_third_l = third_l();
    myr_context_switch(&peer, &origin);
    CHECK(fegetround() == FE_UPWARD);
    CHECK(third() == peer_third);
    CHECK(third_l() == peer_third_l);
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* Rounding toward zero set with fesetround is still in force after a
 * switch to a context that rounds upward, and the other way round; the
 * arithmetic (double and long double) follows the restored mode. */
static void rounding_mode_survives_switch(void)
{
    myr_stack *s = test_context_start(&peer, rounding_peer, NULL);
    CHECK(fesetround(FE_TOWARDZERO) == 0);
    double own_third = third();
    long double own_third_l = third_l();
    myr_context_switch(&origin, &peer);
    CHECK(fegetround() == FE_TOWARDZERO);
    CHECK(third() == own_third);
    CHECK(third_l() == own_third_l);
    /* The two modes really round differently (also under an emulator). */
    CHECK(peer_third > own_third);
    CHECK(peer_third_l > own_third_l);
    myr_context_switch(&origin, &peer);
    CHECK(fegetround() == FE_TOWARDZERO);
    fesetround(FE_TONEAREST);
    myr_stack_destroy(s);
}

/* ---- the whole control state ----------------------------------------- */

static void control_peer(void *arg)
{
    (void)arg;
    check_control("new context", DEFAULT_CONTROL);
    myr_test_fp_control_set(PEER_CONTROL);
    check_control("peer after setting its control", PEER_CONTROL);
    myr_context_switch(&peer, &origin);
    check_control("peer after being resumed", PEER_CONTROL);
    myr_test_fp_control_set(DEFAULT_CONTROL);
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* Every control bit (x86_64: MXCSR rounding and flush-to-zero, x87
 * rounding and precision; aarch64: FPCR rounding, flush-to-zero, default
 * NaN) survives a switch to a context that set them all differently, in
 * both directions. */
static void control_state_survives_switch(void)
{
    uint64_t saved = myr_test_fp_control_get();
    myr_stack *s = test_context_start(&peer, control_peer, NULL);
    myr_test_fp_control_set(ORIGIN_CONTROL);
    check_control("origin after setting its control", ORIGIN_CONTROL);
    myr_context_switch(&origin, &peer);
    check_control("origin after the first switch back", ORIGIN_CONTROL);
    myr_context_switch(&origin, &peer);
    check_control("origin after the second switch back", ORIGIN_CONTROL);
    myr_test_fp_control_set(saved);
    myr_stack_destroy(s);
}

static void default_peer(void *arg)
{
    (void)arg;
    check_control("new context", DEFAULT_CONTROL);
    CHECK(fegetround() == FE_TONEAREST);
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* A new context starts with the default control state (round to nearest,
 * exceptions masked), not with the state of the context that switched to
 * it. */
static void new_context_starts_with_default_control(void)
{
    uint64_t saved = myr_test_fp_control_get();
    myr_stack *s = test_context_start(&peer, default_peer, NULL);
    myr_test_fp_control_set(ORIGIN_CONTROL);
    myr_context_switch(&origin, &peer);
    myr_test_fp_control_set(saved);
    myr_stack_destroy(s);
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"rounding_mode_survives_switch", rounding_mode_survives_switch},
        {"control_state_survives_switch", control_state_survives_switch},
        {"new_context_starts_with_default_control",
         new_context_starts_with_default_control},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
