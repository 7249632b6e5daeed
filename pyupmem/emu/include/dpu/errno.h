/* errno.h of the DPU's C library: the error numbers the DPU runtime returns (the values
 * are Linux's, as the emulator's runtime is). */
#ifndef _DPUSYSCORE_ERRNO_H_
#define _DPUSYSCORE_ERRNO_H_

#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EINVAL 22
#define ENOSPC 28
#define EDOM 33
#define ERANGE 34
#define ENOSYS 38
#define EOVERFLOW 75
#define EALREADY 114

#ifdef __cplusplus
extern "C" {
#endif
/* One errno for the DPU (shared by its tasklets, as the SDK's). */
extern int __dpurt_errno;
#define errno __dpurt_errno
#ifdef __cplusplus
}
#endif

#endif
