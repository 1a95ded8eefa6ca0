#ifndef CJPEG_H
#define CJPEG_H
int cjpeg_placeholder(void);
#endif
