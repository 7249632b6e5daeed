/* strerror of the DPU's C library, in its own object: its messages take WRAM (.rodata) in
 * a program that calls it and in no other, as with the SDK's C library. */
#include <errno.h>
#include <string.h>

char *strerror(int errnum)
{
    switch (errnum) {
    case 0: return "Success";
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EINTR: return "Interrupted system call";
    case EIO: return "Input/output error";
    case EAGAIN: return "Resource temporarily unavailable";
    case ENOMEM: return "Cannot allocate memory";
    case EFAULT: return "Bad address";
    case EBUSY: return "Device or resource busy";
    case EINVAL: return "Invalid argument";
    case EDOM: return "Numerical argument out of domain";
    case ERANGE: return "Numerical result out of range";
    case EALREADY: return "Operation already in progress";
    default: return "Unknown error";
    }
}
