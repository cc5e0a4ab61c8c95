/*
 * sanitize.c — what LeakSanitizer should not call our leaks, in the
 * ASan+UBSan build (MYR_SANITIZE): the start-up state that PMIx and UCX
 * keep until the process exits, on purpose. Every program and library of
 * Myriad carries base/, so jobs of several processes (the processes,
 * myriad-launch) get it without LSAN_OPTIONS.
 */
#ifdef MYR_SANITIZE
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n"
           "leak:libucs.so\n"
           "leak:libucp.so\n"
           "leak:libuct.so\n";
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int myr_sanitize_nothing;
#endif
