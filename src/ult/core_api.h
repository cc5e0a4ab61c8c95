/*
 * core_api.h — the ULT calls the layers above make on their hot paths
 * (blocking and completing a request), without the PLT.
 *
 * The public functions of myr_ult.h are exported from libmyriad, so a call
 * to them from inside the library goes through the PLT and cannot be
 * inlined (a program could interpose them). These are the same functions
 * under hidden names (the public ones are aliases of them), plus inline
 * versions of self/inherited, which are two loads. Semantics are exactly
 * those of the public functions; see sched.c for the invariants.
 */
#ifndef MYR_ULT_CORE_API_H
#define MYR_ULT_CORE_API_H

#include "ult/internal.h"

#define MYR_ULT_HIDDEN __attribute__((visibility("hidden")))

/* myr_ult_resume, myr_ult_suspend, myr_ult_yield. */
MYR_ULT_HIDDEN int myr_ult_resume_internal(myr_ult_t *ult);
MYR_ULT_HIDDEN int myr_ult_suspend_internal(void);
MYR_ULT_HIDDEN void myr_ult_yield_internal(void);

/* myr_ult_self: the running ULT, NULL outside a ULT. Read afresh after any
 * switch (myr_worker_current, internal.h). */
static inline myr_ult_t *myr_ult_self_internal(void)
{
    myr_worker *w = myr_worker_current();
    return w ? w->current : NULL;
}

/* myr_ult_inherited. */
static inline void *myr_ult_inherited_internal(void)
{
    myr_ult *u = myr_ult_self_internal();
    return u ? u->inherited : NULL;
}

#endif
