#include "CPNG.h"
int cpng_placeholder(void) { return 0; }
