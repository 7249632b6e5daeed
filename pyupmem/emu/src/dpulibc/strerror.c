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
    case E2BIG: return "Argument list too long";
    case EAGAIN: return "Resource temporarily unavailable";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EFAULT: return "Bad address";
    case EBUSY: return "Device or resource busy";
    case EINVAL: return "Invalid argument";
    case ENOSPC: return "No space left on device";
    case EDOM: return "Numerical argument out of domain";
    case ERANGE: return "Numerical result out of range";
    case ENOSYS: return "Function not implemented";
    case EOVERFLOW: return "Value too large for defined data type";
    case EALREADY: return "Operation already in progress";
    default: return "Unknown error";
    }
}
