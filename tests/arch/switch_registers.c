/* switch_registers.c — a switch away and back leaves every callee-saved
 * register as it was, whatever the other context put in them meanwhile.
 * Usage: switch_registers CASE.
 *
 * Both sides load distinct patterns into all callee-saved registers (in
 * assembly, myr_test_call_keeping_regs) and switch; each pattern differs
 * from the other side's in every register, so a register the switch forgot
 * to save comes back holding the other side's pattern. */
#include "arch_test.h"

static const char *const reg_names[TEST_CALLEE_SAVED_COUNT] = {
    TEST_CALLEE_SAVED_NAMES};

/* Pattern `side` ('A' or 'B') for round `round`: distinct per register,
 * per side and per round. */
static void fill_pattern(uint64_t *values, int side, int round)
{
    for (int i = 0; i < TEST_CALLEE_SAVED_COUNT; i++)
        values[i] = 0x5a00000000000000ull * (uint64_t)(side == 'A' ? 1 : 2) +
                    ((uint64_t)side << 40) + ((uint64_t)round << 32) +
                    0x01010101ull * (uint64_t)(i + 1);
}

static void report(const char *who, uint64_t mask)
{
    for (int i = 0; i < TEST_CALLEE_SAVED_COUNT; i++)
        if (mask & (1ull << i))
            fprintf(stderr, "%s: %s was not preserved across the switch\n",
                    who, reg_names[i]);
}

static myr_context origin, peer;
static uint64_t peer_mask;
static int use_cb;
static int cb_calls;

static void count_call(void *arg)
{
    (*(int *)arg)++;
}

/* Switch from `from` to `to` through the switch under test, with the
 * callee-saved registers holding `values` until we are switched back. */
static uint64_t switch_keeping(const uint64_t *values, myr_context *from,
                               myr_context *to)
{
    if (use_cb)
        return myr_test_call_keeping_regs(values,
                                          (void (*)(void))myr_context_switch_cb,
                                          from, to, count_call, &cb_calls);
    return myr_test_call_keeping_regs(values, (void (*)(void))myr_context_switch,
                                      from, to, NULL, NULL);
}

static void peer_main(void *arg)
{
    (void)arg;
    uint64_t values[TEST_CALLEE_SAVED_COUNT];
    fill_pattern(values, 'B', 0);
    peer_mask = switch_keeping(values, &peer, &origin);
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

static void check_both_sides_keep_registers(void)
{
    myr_stack *s = test_context_start(&peer, peer_main, NULL);
    uint64_t values[TEST_CALLEE_SAVED_COUNT];

    /* Round 0: we hold A0, the peer starts and loads B0, switches back. */
    fill_pattern(values, 'A', 0);
    uint64_t mask = switch_keeping(values, &origin, &peer);
    report("switching side", mask);
    /* Round 1: we hold A1; the peer, resumed, checks that B0 survived. */
    fill_pattern(values, 'A', 1);
    uint64_t mask1 = switch_keeping(values, &origin, &peer);
    report("switching side, second switch", mask1);
    report("resumed side", peer_mask);
    CHECK(mask == 0 && mask1 == 0 && peer_mask == 0);
    if (use_cb)
        CHECK(cb_calls == 3);
    myr_stack_destroy(s);
}

/* myr_context_switch restores rbx, rbp, r12-r15 (x86_64) or x19-x29 and
 * d8-d15 (aarch64) of the context it resumes. */
static void switch_preserves_callee_saved_registers(void)
{
    use_cb = 0;
    check_both_sides_keep_registers();
}

/* So does myr_context_switch_cb, on both the saving and the resuming side. */
static void switch_cb_preserves_callee_saved_registers(void)
{
    use_cb = 1;
    check_both_sides_keep_registers();
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"switch_preserves_callee_saved_registers",
         switch_preserves_callee_saved_registers},
        {"switch_cb_preserves_callee_saved_registers",
         switch_cb_preserves_callee_saved_registers},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
