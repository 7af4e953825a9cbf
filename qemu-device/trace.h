#include "trace/trace-hw_mxa.h"
