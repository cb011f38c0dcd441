/* The same checks compiled as C++ (the headers must be C and C++ compatible). */
#include "acc_cap_constants.c"
