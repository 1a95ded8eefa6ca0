#include "CJPEG.h"
int cjpeg_placeholder(void) { return 0; }
