/*
 * Helper threads kept from one call to the next and woken for each, for the passes of _passes.c to share a node's
 * children: a thread started for each node waits for a scheduler slice on a busy machine, which a river's pass of a
 * millisecond does not repay (two threads started per node made the subgame4 river 1.4 to 1.8 times slower than one
 * thread at load 3.3; woken ones 1.02 times). Jobs nest: a thread sharing a node's children shares those of a node below
 * it again, and a helper that finishes its part of one job joins another that still has work (the river cards of a
 * line still being walked); two callers may hold jobs at once. A helper joins one job
 * at a time and runs it to the end, and a caller waits only for the helpers of its own job, so waits never go round.
 * A process forked from this one starts without helpers.
 */
#include <pthread.h>
#include <stddef.h>

typedef struct Job {
    void (*work)(void *);                  /* the job: work(arg) on each thread that joins it */
    void *arg;
    int wanted, running;                   /* helpers still to join it; in it */
    struct Job *next;                      /* the next job posted */
} Job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    Job *jobs;                             /* posted jobs, oldest first: a free helper joins the oldest that wants one,
                                              whose children hold the most work left */
    int helpers, idle;                     /* threads started; of them, in no job */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

static Job *wanting(void) {
    for (Job *j = pool.jobs; j; j = j->next)
        if (j->wanted > 0) return j;
    return NULL;
}

static void *helper(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        Job *job;
        while (!(job = wanting())) pthread_cond_wait(&pool.wake, &pool.lock);
        job->wanted--, job->running++;
        __atomic_store_n(&pool.idle, pool.idle - 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&pool.lock);
        job->work(job->arg);
        pthread_mutex_lock(&pool.lock);
        __atomic_store_n(&pool.idle, pool.idle + 1, __ATOMIC_RELAXED);
        if (--job->running == 0) pthread_cond_broadcast(&pool.done);
    }
    return NULL;
}

static void forked(void) {
    pthread_mutex_init(&pool.lock, NULL), pthread_cond_init(&pool.wake, NULL), pthread_cond_init(&pool.done, NULL);
    pool.jobs = NULL, pool.helpers = pool.idle = 0;
}

static void once(void) { pthread_atfork(NULL, NULL, forked); }

/* work(arg) on the calling thread and on up to `extra` helpers (started where fewer than `extra` exist) that join
   before it returns there: idle ones at once, busy ones as they finish their part of another job; work must leave
   nothing for a helper joining later (a shared queue it has emptied). Returns after every helper that joined is done,
   with the helpers offered the job (0: none could be started). */
int pool_run(void (*work)(void *), void *arg, int extra) {
    static pthread_once_t registered = PTHREAD_ONCE_INIT;
    pthread_once(&registered, once);
    Job job = {work, arg, 0, 0, NULL};
    pthread_mutex_lock(&pool.lock);
    for (; pool.helpers < extra; __atomic_store_n(&pool.helpers, pool.helpers + 1, __ATOMIC_RELAXED)) {
        pthread_t t;
        if (pthread_create(&t, NULL, helper, NULL) != 0) break;
        pthread_detach(t);
        __atomic_store_n(&pool.idle, pool.idle + 1, __ATOMIC_RELAXED);
    }
    extra = extra < pool.helpers ? extra : pool.helpers;
    if (extra > 0) {
        Job **at = &pool.jobs;
        while (*at) at = &(*at)->next;
        job.wanted = extra, *at = &job;
        if (pool.idle) pthread_cond_broadcast(&pool.wake);
    }
    pthread_mutex_unlock(&pool.lock);
    work(arg);
    if (extra <= 0) return 0;
    pthread_mutex_lock(&pool.lock);
    job.wanted = 0; /* a helper not joined yet stays out */
    for (Job **at = &pool.jobs; *at; at = &(*at)->next)
        if (*at == &job) { *at = job.next; break; }
    while (job.running) pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    return extra;
}
