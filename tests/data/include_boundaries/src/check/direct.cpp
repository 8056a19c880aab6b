// Violation: libibverbs outside src/os and src/probe.
#include <infiniband/verbs.h>
