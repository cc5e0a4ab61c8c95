/* tag_lines.c — output for `mpiexec -l`: each rank writes LINES lines to
 * stdout, each in three pieces with yields between them (so that ranks
 * interleave in the middle of lines), two lines in one printf, and one line
 * to stderr. Rank 0 also has a kernel thread of its own print a line
 * (tagged: it acts for rank 0), lets a kernel thread that no rank created
 * print one (untagged), and ends with a line without its newline. */
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void *print_in_rank_0(void *arg)
{
    (void)arg;
    printf("rank 0 thread\n");
    return NULL;
}

/* The thread outside any rank: started before the runtime by the
 * program's constructor (not by the private copies' ones: the first run
 * leaves a mark in the environment, which the process shares), it prints
 * once rank 0, which runs the program itself, lets it. */
static pthread_mutex_t outsider_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t outsider_go = PTHREAD_COND_INITIALIZER;
static bool outsider_may_print;
static pthread_t outsider;

static void *print_outside(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&outsider_lock);
    while (!outsider_may_print)
        pthread_cond_wait(&outsider_go, &outsider_lock);
    pthread_mutex_unlock(&outsider_lock);
    printf("outside any rank\n");
    return NULL;
}

__attribute__((constructor)) static void start_outsider(void)
{
    if (getenv("TAG_LINES_OUTSIDER"))
        return;
    setenv("TAG_LINES_OUTSIDER", "started", 1);
    pthread_create(&outsider, NULL, print_outside, NULL);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int lines = argc > 1 ? atoi(argv[1]) : 5;
    for (int i = 0; i < lines; i++) {
        printf("rank %d ", rank);
        myr_ult_yield();
        printf("line %d", i);
        myr_ult_yield();
        putchar('\n');
    }
    printf("rank %d multi a\nrank %d multi b\n", rank, rank);
    fprintf(stderr, "rank %d on stderr\n", rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, print_in_rank_0, NULL);
        pthread_join(t, NULL);
        pthread_mutex_lock(&outsider_lock);
        outsider_may_print = true;
        pthread_cond_signal(&outsider_go);
        pthread_mutex_unlock(&outsider_lock);
        pthread_join(outsider, NULL);
        printf("rank 0 unfinished");
    }
    MPI_Finalize();
    return 0;
}
