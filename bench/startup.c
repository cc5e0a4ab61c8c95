/*
 * startup.c — startup_bench: the workload of scripts/bench-startup, a small
 * MPI program with writable globals, so that the same binary runs with
 * them private to each rank (MYR_PRIVATIZE=always) or shared
 * (MYR_PRIVATIZE=never), and the two can be compared.
 *
 * Every rank: MPI_Init, touches the globals (fills an 8 KiB table, writes
 * a 4 KiB label, increments a global counter), MPI_Barrier. After that
 * barrier every rank is alive and has touched what a rank touches, and
 * rank 0 measures the process:
 *
 *   ready_s    seconds from this program's first constructor to rank 0
 *              past the barrier: what a job costs to start, in-process.
 *              The constructor of the executable runs before main (and,
 *              under Myriad, before the runtime starts, loads the private
 *              copies and spawns the ranks), so that is all included; what
 *              comes before it (exec, the dynamic linker loading libc and
 *              libmyriad) is not, which is why the driver also times the
 *              whole run from outside. Private copies run their own
 *              constructor into their own global; rank 0 runs the
 *              executable's, whose clock is the first.
 *   main_s     the same clock when rank 0 entered main.
 *   rss_kib, hwm_kib, anon_kib, file_kib, shmem_kib
 *              VmRSS, VmHWM, RssAnon, RssFile, RssShmem (/proc/self/status):
 *              touched pages only (a rank's 1 MiB stack is reserved, and
 *              costs what the rank touched of it).
 *   pss_kib    Pss (/proc/self/smaps_rollup): RSS with pages shared with
 *              other processes divided among them: the fair per-process
 *              figure when one rank is one process (Open MPI, MPICH).
 *   memfd_kib  bytes the process's memfds hold (Myriad's private copies
 *              live in memfds): counted in RSS only while mapped and not
 *              yet copied-on-write, yet they use memory all the same.
 *   maps       lines of /proc/self/maps (limited by vm.max_map_count).
 *   globals    what the ranks saw of the counter: `private` when each saw
 *              only its own increment, `shared` when each saw all N.
 *
 * Output: one line of key=value fields, from rank 0. Option --expect
 * private|shared makes the run fail when the globals were not so (the
 * CTest runs use it; no timing is ever checked).
 *
 * A portable MPI source (plus Linux's /proc): scripts/bench-startup also
 * builds it with Open MPI for a one-rank-per-process reference.
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The writable globals of a typical program: a table in .bss, a label
 * in .data, a counter. */
#define TABLE_LEN 1024
static double table[TABLE_LEN];
static char label[4096] = "startup_bench";
int startup_counter;
static struct timespec first_ctor;

/* The clock of start-up: the executable's constructors run before main,
 * so before the runtime starts and loads the ranks' copies (see the top). */
__attribute__((constructor)) static void note_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &first_ctor);
}

static double seconds_since_start(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - first_ctor.tv_sec) +
           (double)(t.tv_nsec - first_ctor.tv_nsec) * 1e-9;
}

/* The value (in kB) of the field `key` of a /proc file, -1 if absent. */
static long proc_kib(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t len = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* Memory held by every memfd the process has open, in KiB. */
static long memfd_kib(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long long bytes = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char target[256];
        ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        struct stat st;
        if (strncmp(target, "/memfd:", 7) == 0 &&
            fstatat(dirfd(d), e->d_name, &st, 0) == 0)
            bytes += (long long)st.st_blocks * 512;
    }
    closedir(d);
    return (long)(bytes / 1024);
}

/* What a rank's start touches of its globals. With shared globals the
 * ranks write over each other's table and label, as such a program's do. */
static void touch_globals(int rank)
{
    for (int i = 0; i < TABLE_LEN; i++)
        table[i] = rank + i * 0.5;
    snprintf(label, sizeof label, "startup_bench rank %d", rank);
    memset(label + 64, rank & 0x7f, sizeof label - 64);
    /* Atomic: in the shared mode the ranks of two workers increment one
     * counter at the same time. */
    __atomic_add_fetch(&startup_counter, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
    double main_s = seconds_since_start();
    const char *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc &&
            (strcmp(argv[i + 1], "private") == 0 || strcmp(argv[i + 1], "shared") == 0)) {
            expect = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--expect private|shared]\n", argv[0]);
            return 2;
        }
    }

    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    touch_globals(rank);

    MPI_Barrier(MPI_COMM_WORLD);
    double ready_s = seconds_since_start();
    long rss = 0, hwm = 0, anon = 0, file = 0, shmem = 0, pss = 0, memfd = 0, maps = 0;
    if (rank == 0) {
        rss = proc_kib("/proc/self/status", "VmRSS");
        hwm = proc_kib("/proc/self/status", "VmHWM");
        anon = proc_kib("/proc/self/status", "RssAnon");
        file = proc_kib("/proc/self/status", "RssFile");
        shmem = proc_kib("/proc/self/status", "RssShmem");
        pss = proc_kib("/proc/self/smaps_rollup", "Pss");
        memfd = memfd_kib();
        maps = count_mappings();
    }

    /* After the barrier every increment is done: each rank sees its own
     * only (private globals) or all of them (shared). */
    long seen = __atomic_load_n(&startup_counter, __ATOMIC_RELAXED), most;
    MPI_Allreduce(&seen, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    const char *globals = size == 1 ? "single" : most == 1 ? "private"
                          : most == size ? "shared" : "mixed";

    int status = 0;
    if (rank == 0) {
        printf("startup ranks=%d globals=%s main_s=%.6f ready_s=%.6f "
               "rss_kib=%ld hwm_kib=%ld anon_kib=%ld file_kib=%ld "
               "shmem_kib=%ld pss_kib=%ld memfd_kib=%ld maps=%ld\n",
               size, globals, main_s, ready_s, rss, hwm, anon, file, shmem,
               pss, memfd, maps);
        fflush(stdout);
        if (expect && size > 1 && strcmp(expect, globals) != 0) {
            fprintf(stderr, "startup_bench: globals were %s, expected %s\n",
                    globals, expect);
            status = 1;
        }
    }
    MPI_Finalize();
    return status;
}
