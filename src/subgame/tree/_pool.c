/*
 * Helper threads kept from one call to the next and woken for each, for the passes of _passes.c to share a node's
 * children: a thread started for each node waits for a scheduler slice on a busy machine, which a river's pass of a
 * millisecond does not repay (two threads started per node made the subgame4 river 1.4 to 1.8 times slower than one
 * thread at load 3.3; woken ones 1.02 times). One caller holds the helpers at a time (another meanwhile does its
 * work alone); a process forked from this one starts without them.
 */
#include <pthread.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    void (*work)(void *);                  /* the job: work(arg) on each thread that joins it */
    void *arg;
    int helpers, wanted, running, held;    /* threads started; of them still to join the job; in it; a caller holds them */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 0, 0};

static void *helper(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.wanted) pthread_cond_wait(&pool.wake, &pool.lock);
        void (*work)(void *) = pool.work, *arg = pool.arg;
        pool.wanted--, pool.running++;
        pthread_mutex_unlock(&pool.lock);
        work(arg);
        pthread_mutex_lock(&pool.lock);
        if (--pool.running == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static void forked(void) {
    pthread_mutex_init(&pool.lock, NULL), pthread_cond_init(&pool.wake, NULL), pthread_cond_init(&pool.done, NULL);
    pool.helpers = pool.wanted = pool.running = pool.held = 0;
}

static void once(void) { pthread_atfork(NULL, NULL, forked); }

/* work(arg) on the calling thread and on up to `extra` helpers that wake before it returns there, which must leave
   nothing for a helper joining later (a shared queue it has emptied); returns after every helper that joined is done.
   Returns the helpers offered the job (0: another caller holds them, or none could be started). */
int pool_run(void (*work)(void *), void *arg, int extra) {
    static pthread_once_t registered = PTHREAD_ONCE_INIT;
    pthread_once(&registered, once);
    pthread_mutex_lock(&pool.lock);
    if (pool.held) extra = 0;
    for (; pool.helpers < extra; pool.helpers++) {
        pthread_t t;
        if (pthread_create(&t, NULL, helper, NULL) != 0) break;
        pthread_detach(t);
    }
    extra = extra < pool.helpers ? extra : pool.helpers;
    if (extra > 0) {
        pool.held = 1, pool.work = work, pool.arg = arg, pool.wanted = extra;
        pthread_cond_broadcast(&pool.wake);
    }
    pthread_mutex_unlock(&pool.lock);
    work(arg);
    if (extra <= 0) return 0;
    pthread_mutex_lock(&pool.lock);
    pool.wanted = 0; /* a helper not woken yet stays out */
    while (pool.running) pthread_cond_wait(&pool.done, &pool.lock);
    pool.held = 0;
    pthread_mutex_unlock(&pool.lock);
    return extra;
}
