/*
 * Helper threads kept from one call to the next and woken for each, for the passes of _passes.c to share a node's
 * children: a thread started for each node waits for a scheduler slice on a busy machine, which a river's pass of a
 * millisecond does not repay (two threads started per node made the subgame4 river 1.4 to 1.8 times slower than one
 * thread at load 3.3; woken ones 1.02 times). Jobs nest: a thread sharing a node's children shares those of a node below
 * it again, and a helper that finishes its part of one job joins another that still has work (the river cards of a
 * line still being walked); two callers may hold jobs at once. A thread joins one job at a time and runs it to the
 * end, and a caller waiting for its job's helpers joins only jobs posted after its own: every wait is for a later job,
 * so waits never go round. A process forked from this one starts without helpers.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Job {
    void (*work)(void *);                  /* the job: work(arg) on each thread that joins it */
    void *arg;
    int wanted, running;                   /* threads still to join it; in it */
    int64_t number;                        /* jobs posted before it */
    struct Job *next;                      /* the next job posted */
} Job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    int64_t posted;                        /* jobs posted so far */
    Job *jobs;                             /* posted jobs, oldest first: a free helper joins the oldest that wants one,
                                              whose children hold the most work left */
    int helpers, idle;                     /* threads started; of them, in no job */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, 0, 0};

/* the oldest job posted after the `after`-th that wants a thread (under the lock) */
static Job *wanting(int64_t after) {
    for (Job *j = pool.jobs; j; j = j->next)
        if (j->wanted > 0 && j->number > after) return j;
    return NULL;
}

/* joins `job`, runs it and leaves it (called and returning with the lock held) */
static void join(Job *job) {
    job->wanted--, job->running++;
    pthread_mutex_unlock(&pool.lock);
    job->work(job->arg);
    pthread_mutex_lock(&pool.lock);
    if (--job->running == 0) pthread_cond_broadcast(&pool.done);
}

static void *helper(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        Job *job;
        while (!(job = wanting(-1))) pthread_cond_wait(&pool.wake, &pool.lock);
        pool.idle--;
        join(job);
        pool.idle++;
    }
    return NULL;
}

static void forked(void) {
    pthread_mutex_init(&pool.lock, NULL), pthread_cond_init(&pool.wake, NULL), pthread_cond_init(&pool.done, NULL);
    pool.jobs = NULL, pool.posted = 0, pool.helpers = pool.idle = 0;
}

static void once(void) { pthread_atfork(NULL, NULL, forked); }

/* work(arg) on the calling thread and on up to `extra` helpers (started where fewer than `extra` exist) that join
   before it returns there: idle ones at once, busy ones as they finish their part of another job; work must leave
   nothing for a helper joining later (a shared queue it has emptied). Returns after every helper that joined is done,
   with the helpers offered the job (0: none could be started); while it waits, the caller joins jobs posted after its
   own (its helpers' nodes below its own, or another caller's). */
int pool_run(void (*work)(void *), void *arg, int extra) {
    static pthread_once_t registered = PTHREAD_ONCE_INIT;
    pthread_once(&registered, once);
    Job job = {work, arg, 0, 0, 0, NULL};
    pthread_mutex_lock(&pool.lock);
    for (; pool.helpers < extra; pool.helpers++) {
        pthread_t t;
        if (pthread_create(&t, NULL, helper, NULL) != 0) break;
        pthread_detach(t);
        pool.idle++;
    }
    extra = extra < pool.helpers ? extra : pool.helpers;
    if (extra > 0) {
        Job **at = &pool.jobs;
        while (*at) at = &(*at)->next;
        job.wanted = extra, job.number = pool.posted++, *at = &job;
        if (pool.idle) pthread_cond_broadcast(&pool.wake);
        pthread_cond_broadcast(&pool.done); /* a caller waiting for its helpers may join it */
    }
    pthread_mutex_unlock(&pool.lock);
    work(arg);
    if (extra <= 0) return 0;
    pthread_mutex_lock(&pool.lock);
    job.wanted = 0; /* a helper not joined yet stays out */
    for (Job **at = &pool.jobs; *at; at = &(*at)->next)
        if (*at == &job) { *at = job.next; break; }
    while (job.running) { /* meanwhile it joins the jobs posted after its own: its helpers' nodes below its own */
        Job *later = wanting(job.number);
        if (later) join(later);
        else pthread_cond_wait(&pool.done, &pool.lock);
    }
    pthread_mutex_unlock(&pool.lock);
    return extra;
}
