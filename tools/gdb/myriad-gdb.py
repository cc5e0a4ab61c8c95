# myriad-gdb.py — gdb commands for Myriad jobs, whose MPI ranks are user-level
# threads of one process (see docs/debugging.md).
#
#   myriad ranks          every rank: its state, the MPI call it is in or
#                         made last, what it waits for
#   myriad bt RANK        the backtrace of a rank's own stack, also when the
#                         rank is suspended (not on any kernel thread)
#   myriad ult ADDRESS    the same for any ULT (a myr_ult_t *)
#
# It also stops the program where the runtime is about to end the job (a
# deadlock, the time limit, a crash report, MPI_Abort), so every rank can
# be looked at before it goes.
#
# Load it with `source myriad-gdb.py`, or start the job under gdb with it
# loaded: `mpiexec -gdb -n 4 ./prog`. It reads the runtime's own structures
# (myr_the_job, the ULT descriptors), so libmyriad must have its debug
# information (the default RelWithDebInfo build has).

import gdb

# The saved-register frame that the context switch leaves on a suspended
# ULT's stack (src/arch/context_<arch>.S): register -> offset from the
# saved stack pointer, the resumed pc, and the stack pointer after return.
FRAMES = {
    "x86_64": {"regs": {"r15": 8, "r14": 16, "r13": 24, "r12": 32, "rbx": 40, "rbp": 48},
               "pc": 56, "sp_after": 64, "sp": "rsp", "pcreg": "rip"},
    "aarch64": {"regs": {"x19": 0, "x20": 8, "x21": 16, "x22": 24, "x23": 32, "x24": 40,
                         "x25": 48, "x26": 56, "x27": 64, "x28": 72, "x29": 80},
                "pc": 88, "sp_after": 176, "sp": "sp", "pcreg": "pc"},
}

ULT_STATES = {0: "runnable", 1: "suspended", 2: "done"}


def arch():
    name = gdb.selected_frame().architecture().name()
    return "aarch64" if "aarch64" in name else "x86_64"


def job():
    j = gdb.parse_and_eval("myr_the_job")
    if int(j["ranks"]) == 0:
        raise gdb.GdbError("no Myriad job is running (myr_the_job has no ranks yet)")
    return j


def enum_name(value):
    text = str(value)
    return text.replace("MYR_WAIT_", "").lower()


def c_string(value):
    return value.string() if int(value) else None


def ult_running_on(ult):
    """The worker index a ULT runs on right now, or None."""
    worker = ult["worker"]
    if int(worker) and int(worker["current"]) == int(ult):
        return int(worker["index"])
    return None


def rank_line(i, r):
    ult = r["ult"]
    call = c_string(r["last_call"])
    if bool(r["returned"]):
        return "rank %d: finished (main returned %d)" % (i, int(r["exit_code"]))
    if not int(ult):
        return "rank %d: not started" % i
    state = int(ult["state"]) & 3
    worker = ult_running_on(ult)
    where = ("running on worker %d" % worker) if worker is not None \
        else ULT_STATES.get(state, "state %d" % state)
    waiting = int(r["waiting_kind"])
    text = "rank %d: %s" % (i, where)
    if waiting:
        text += ", blocked in %s (waits for: %s)" % (call or "MPI",
                                                      enum_name(r["waiting"]["kind"]))
    elif call:
        text += ", last MPI call %s" % call
    return text


def show_backtrace(ult):
    worker = ult_running_on(ult)
    if worker is not None:
        raise gdb.GdbError("this ULT is running on worker %d: select that worker's "
                           "thread and use bt" % worker)
    if (int(ult["state"]) & 3) == 2:
        raise gdb.GdbError("this ULT has finished")
    if bool(ult["is_main"]) or bool(ult["external"]):
        raise gdb.GdbError("not a ULT with a stack of its own")
    sp = int(ult["fiber"]["ctx"]["sp"])
    if not sp:
        raise gdb.GdbError("this ULT has not run yet")
    f = FRAMES[arch()]
    inferior = gdb.selected_inferior()

    def word(offset):
        return int.from_bytes(inferior.read_memory(sp + offset, 8).tobytes(), "little")

    # Point the selected thread's registers at the ULT's saved frame, show
    # the backtrace, and put every register back.
    gdb.newest_frame().select()
    names = list(f["regs"]) + [f["sp"], f["pcreg"]]
    saved = {n: int(gdb.parse_and_eval("$" + n)) for n in names}
    try:
        for reg, off in f["regs"].items():
            gdb.execute("set $%s = %d" % (reg, word(off)), to_string=True)
        gdb.execute("set $%s = %d" % (f["sp"], sp + f["sp_after"]), to_string=True)
        gdb.execute("set $%s = %d" % (f["pcreg"], word(f["pc"])), to_string=True)
        gdb.execute("bt")
    finally:
        for n in names:
            gdb.execute("set $%s = %d" % (n, saved[n]), to_string=True)
        gdb.newest_frame().select()


class Myriad(gdb.Command):
    """Commands for Myriad jobs: myriad ranks, myriad bt RANK, myriad ult ADDRESS."""

    def __init__(self):
        super().__init__("myriad", gdb.COMMAND_USER, prefix=True)


class MyriadRanks(gdb.Command):
    """List the job's MPI ranks: state, MPI call, what each waits for."""

    def __init__(self):
        super().__init__("myriad ranks", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        j = job()
        n = int(j["size"])
        gdb.write("%d ranks\n" % n)
        for i in range(n):
            gdb.write(rank_line(i, j["ranks"][i]) + "\n")


class MyriadBt(gdb.Command):
    """Backtrace of rank RANK's own stack: myriad bt RANK."""

    def __init__(self):
        super().__init__("myriad bt", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        j = job()
        try:
            i = int(gdb.parse_and_eval(arg))
        except gdb.error:
            raise gdb.GdbError("usage: myriad bt RANK")
        if i < 0 or i >= int(j["size"]):
            raise gdb.GdbError("no rank %d (the job has %d)" % (i, int(j["size"])))
        r = j["ranks"][i]
        gdb.write("rank %d:\n" % i)
        show_backtrace(r["ult"])


class MyriadUlt(gdb.Command):
    """Backtrace of any ULT: myriad ult ADDRESS (a myr_ult_t *)."""

    def __init__(self):
        super().__init__("myriad ult", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        ult = gdb.parse_and_eval("(struct myr_ult *)(%s)" % arg)
        show_backtrace(ult)


class JobEnds(gdb.Breakpoint):
    """Stops where the runtime is about to end the job (a deadlock, the
    time limit, a crash report, MPI_Abort): every rank is still there to
    look at with `myriad ranks` and `myriad bt RANK`; `continue` ends it."""

    def __init__(self, address):
        # At the entry address: gdb would also place it in inlined copies.
        super().__init__("*0x%x" % address, internal=True)

    def stop(self):
        try:
            status = int(gdb.parse_and_eval("status"))
            reason = gdb.parse_and_eval("reason").string()
        except gdb.error:
            status, reason = -1, "(no debug information)"
        gdb.write("myriad: the job is about to end because %s (exit status %d): "
                  "`myriad ranks` and `myriad bt RANK` show what each rank is doing, "
                  "`continue` ends it\n" % (reason, status))
        return True


Myriad()
MyriadRanks()
MyriadBt()
MyriadUlt()
_job_ends = []


def _place_job_ends(event=None):
    """Set the breakpoint once libmyriad (or a static program) is loaded."""
    symbol = gdb.lookup_global_symbol("myr_job_end_begin")
    if _job_ends or symbol is None:
        return
    _job_ends.append(JobEnds(int(symbol.value().address)))


gdb.events.new_objfile.connect(_place_job_ends)
_place_job_ends()
