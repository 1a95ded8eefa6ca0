/* Work on a mapped file, guarded against the file shrinking under the mapping (bus_guard.c). */
#ifndef TILER_BUS_GUARD_H
#define TILER_BUS_GUARD_H

/* Runs run(context) so that a SIGBUS it takes — a read of a page of a mapped file that was truncated since it was
 * mapped — ends it there instead of the process: 0 when it ran to its end, -1 when it faulted. run may be cut off at
 * any instruction, so it must take no lock and allocate nothing (copying out of the mapping is what it is for). */
int tiler_bus_guarded(void (*run)(void *context), void *context);

#endif
