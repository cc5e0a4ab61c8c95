/* ring.c — many contexts at once: a ring of contexts, each switching to the
 * next, keeps every context's state and the order of turns over many
 * laps. Usage: ring CASE. */
#include "arch_test.h"

enum { MEMBERS = 1000, LAPS = 50 };

static myr_context origin;
static myr_context members[MEMBERS];
static long turns_taken[MEMBERS];
static long turn;          /* turns taken by the whole ring */
static long out_of_order;  /* turns taken when it was not the member's turn */
static int with_callback;

/* Callback bookkeeping: who handed over last, and how often. */
static long handed_from = -1;
static long handovers;

static void hand_over(void *arg)
{
    handed_from = (long)arg;
    handovers++;
}

static void member(void *arg)
{
    long me = (long)arg;
    for (long lap = 0; lap < LAPS; lap++) {
        if (turn != lap * MEMBERS + me || turns_taken[me] != lap)
            out_of_order++;
        long previous = lap == 0 && me == 0 ? -1 : (me + MEMBERS - 1) % MEMBERS;
        if (with_callback && handed_from != previous)
            out_of_order++;
        turn++;
        turns_taken[me]++;
        int last = lap == LAPS - 1 && me == MEMBERS - 1;
        const myr_context *next = last ? &origin : &members[(me + 1) % MEMBERS];
        if (with_callback)
            myr_context_switch_cb(&members[me], next, hand_over, (void *)me);
        else
            myr_context_switch(&members[me], next);
    }
    CHECK(!"ring member resumed after its last lap");
}

static void run_ring(void)
{
    static myr_stack *stacks[MEMBERS];
    for (long i = 0; i < MEMBERS; i++) {
        stacks[i] = myr_stack_create(64 * 1024);
        CHECK(stacks[i] != NULL);
        myr_context_make(&members[i], stacks[i]->lo,
                         (size_t)((char *)myr_stack_top(stacks[i]) -
                                  (char *)stacks[i]->lo),
                         member, (void *)i);
    }
    myr_context_switch(&origin, &members[0]);
    if (out_of_order)
        fprintf(stderr, "%ld turns out of order\n", out_of_order);
    CHECK(out_of_order == 0);
    CHECK(turn == (long)MEMBERS * LAPS);
    for (long i = 0; i < MEMBERS; i++)
        CHECK(turns_taken[i] == LAPS);
    if (with_callback) {
        CHECK(handovers == (long)MEMBERS * LAPS);
        CHECK(handed_from == MEMBERS - 1);
    }
    for (long i = 0; i < MEMBERS; i++)
        myr_stack_destroy(stacks[i]);
}

/* 1000 contexts passing the turn round a ring 50 times take their turns in
 * order, each resuming where it left off. */
static void ring_takes_turns_in_order(void)
{
    with_callback = 0;
    run_ring();
}

/* The same with myr_context_switch_cb: every hand-over runs its callback
 * once, with the argument of the context that handed over. */
static void ring_with_callbacks_takes_turns_in_order(void)
{
    with_callback = 1;
    run_ring();
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"ring_takes_turns_in_order", ring_takes_turns_in_order},
        {"ring_with_callbacks_takes_turns_in_order",
         ring_with_callbacks_takes_turns_in_order},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
