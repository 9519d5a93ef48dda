/* Old name of string.h, which btAlignedObjectArray.h includes. */
#include <string.h>
