/*
 * Reads of a mapped file, guarded. A file truncated in place after it was mapped makes a read of its vanished pages
 * raise SIGBUS, which would take the server down: while a thread runs guarded work, a SIGBUS it takes jumps back out
 * of that work, which fails (the caller reports the file as changed). A SIGBUS anywhere else is handed to the handler
 * there was before (the Swift runtime's backtracer, or the default action).
 */
#include "bus_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

static _Thread_local sigjmp_buf *volatile guarded_jump;
static struct sigaction previous_bus_action;
static pthread_once_t bus_handler_once = PTHREAD_ONCE_INIT;

static void on_bus_error(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    sigjmp_buf *jump = guarded_jump;
    if (jump != NULL) siglongjmp(*jump, 1);
    /* Not ours: put the previous handler back. A fault repeats on return and reaches it; a sent signal is sent again. */
    sigaction(SIGBUS, &previous_bus_action, NULL);
    if (info == NULL || info->si_code <= 0) raise(signal_number);
}

static void install_bus_handler(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    /* SA_NODEFER: SIGBUS stays unblocked in the handler, so jumping out of it leaves the thread's mask as it was (and
     * sigsetjmp need not save the mask, a system call). */
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_bus_action);
}

int tiler_bus_guarded(void (*run)(void *context), void *context) {
    pthread_once(&bus_handler_once, install_bus_handler);
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0)) {
        guarded_jump = NULL;
        return -1;
    }
    guarded_jump = &jump;
    run(context);
    guarded_jump = NULL;
    return 0;
}
