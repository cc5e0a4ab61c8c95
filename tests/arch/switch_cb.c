/* switch_cb.c — myr_context_switch_cb calls cb(arg) once, on the stack of
 * the context it switches to, after the old context is completely saved and
 * before the new one resumes. Usage: switch_cb CASE. */
#include "arch_test.h"

static myr_context origin, peer;
static myr_stack *peer_stack;

/* What a callback saw. */
typedef struct cb_seen {
    int calls;
    void *arg;
    void *sp;        /* the callback's stack pointer */
    void *from_sp;   /* origin.sp while the callback ran */
} cb_seen;

static cb_seen seen;
static int peer_steps;

static void record(void *arg)
{
    seen.calls++;
    seen.arg = arg;
    seen.sp = myr_test_stack_pointer();
    seen.from_sp = origin.sp;
}

/* The peer counts its steps and hands control back after each. */
static void stepping_peer(void *arg)
{
    (void)arg;
    for (;;) {
        peer_steps++;
        myr_context_switch(&peer, &origin);
    }
}

/* The callback receives exactly the argument given to the switch. */
static void callback_receives_its_argument(void)
{
    peer_stack = test_context_start(&peer, stepping_peer, NULL);
    int token;
    myr_context_switch_cb(&origin, &peer, record, &token);
    CHECK(seen.calls == 1);
    CHECK(seen.arg == &token);
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(seen.calls == 2);
    CHECK(seen.arg == NULL);
    myr_stack_destroy(peer_stack);
}

/* The callback runs on the target's stack: a new context's stack when the
 * target has never run, and below the saved frame of a suspended target
 * (so it cannot overwrite the registers about to be restored). */
static void callback_runs_on_target_stack(void)
{
    peer_stack = test_context_start(&peer, stepping_peer, NULL);
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(test_on_stack(peer_stack, seen.sp));

    void *saved_frame = peer.sp;
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(test_on_stack(peer_stack, seen.sp));
    CHECK((char *)seen.sp < (char *)saved_frame);
    myr_stack_destroy(peer_stack);
}

/* When the callback runs, `from` already holds the saved stack pointer:
 * the one a later switch back resumes from, just below the caller's. */
static void callback_runs_after_from_is_saved(void)
{
    peer_stack = test_context_start(&peer, stepping_peer, NULL);
    origin.sp = NULL;
    void *caller_sp = myr_test_stack_pointer();
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(seen.from_sp != NULL);
    CHECK(seen.from_sp == origin.sp);
    CHECK((char *)seen.from_sp < (char *)caller_sp);
    CHECK((char *)caller_sp - (char *)seen.from_sp < 4096);
    myr_stack_destroy(peer_stack);
}

/* ---- the saved context is complete when the callback runs ----------- */

static myr_context in_callback;
static int resumed_from_callback;

/* Resume the context that was just saved, straight from the callback, as
 * another worker may do once the callback has published it. */
static void resume_from(void *arg)
{
    myr_context *from = arg;
    resumed_from_callback++;
    myr_context_switch(&in_callback, from);
    /* Switched back here later: let the switch finish into the peer. */
}

/* The saved context is complete when the callback runs: the callback may
 * resume it at once (with all callee-saved registers intact) while its own
 * switch is still in progress. */
static void callback_may_resume_the_saved_context(void)
{
    static const uint64_t values[TEST_CALLEE_SAVED_COUNT] = {
        0x1111111111111111ull, 0x2222222222222222ull, 0x3333333333333333ull,
        0x4444444444444444ull, 0x5555555555555555ull, 0x6666666666666666ull,
#if TEST_CALLEE_SAVED_COUNT > 6
        0x7777777777777777ull, 0x8888888888888888ull, 0x9999999999999999ull,
        0xaaaaaaaaaaaaaaaaull, 0xbbbbbbbbbbbbbbbbull, 0xccccccccccccccccull,
        0xddddddddddddddddull, 0xeeeeeeeeeeeeeeeeull, 0x0f0f0f0f0f0f0f0full,
        0x1e1e1e1e1e1e1e1eull, 0x2d2d2d2d2d2d2d2dull, 0x3c3c3c3c3c3c3c3cull,
        0x4b4b4b4b4b4b4b4bull,
#endif
    };
    peer_stack = test_context_start(&peer, stepping_peer, NULL);
    uint64_t mask = myr_test_call_keeping_regs(
        values, (void (*)(void))myr_context_switch_cb, &origin, &peer,
        resume_from, &origin);
    /* Back here through the callback's switch, not through the peer. */
    CHECK(mask == 0);
    CHECK(resumed_from_callback == 1);
    CHECK(peer_steps == 0);
    /* Let the callback return: the interrupted switch goes on to the peer,
     * which steps once and switches back. */
    myr_context_switch(&origin, &in_callback);
    CHECK(peer_steps == 1);
    myr_stack_destroy(peer_stack);
}

/* ---- once, before the target goes on --------------------------------- */

static int peer_saw_calls[2];

static void checking_peer(void *arg)
{
    (void)arg;
    peer_saw_calls[0] = seen.calls;
    myr_context_switch_cb(&peer, &origin, record, NULL);
    peer_saw_calls[1] = seen.calls;
    myr_context_switch(&peer, &origin);
    CHECK(!"peer resumed after the test ended");
}

/* The callback runs exactly once per switch and before the target goes on:
 * a new target sees it at entry, a suspended one when its switch returns,
 * and it runs even when the target is the thread's original context. */
static void callback_runs_once_before_target_resumes(void)
{
    peer_stack = test_context_start(&peer, checking_peer, NULL);
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(peer_saw_calls[0] == 1);
    CHECK(seen.calls == 2);
    myr_context_switch_cb(&origin, &peer, record, NULL);
    CHECK(peer_saw_calls[1] == 3);
    CHECK(seen.calls == 3);
    myr_stack_destroy(peer_stack);
}

int main(int argc, char **argv)
{
    static const test_case cases[] = {
        {"callback_receives_its_argument", callback_receives_its_argument},
        {"callback_runs_on_target_stack", callback_runs_on_target_stack},
        {"callback_runs_after_from_is_saved",
         callback_runs_after_from_is_saved},
        {"callback_may_resume_the_saved_context",
         callback_may_resume_the_saved_context},
        {"callback_runs_once_before_target_resumes",
         callback_runs_once_before_target_resumes},
    };
    return RUN_TEST_CASES(argc, argv, cases);
}
