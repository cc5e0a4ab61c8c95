/* shared_state_lib.c — a shared library of the program's own with writable
 * globals: loaded once per process, so all ranks share them (Myriad warns,
 * naming the library and its globals). */
int shared_state_counter;
static int shared_state_calls;

int shared_state_next(void)
{
    shared_state_calls++;
    return __atomic_fetch_add(&shared_state_counter, 1, __ATOMIC_RELAXED);
}
