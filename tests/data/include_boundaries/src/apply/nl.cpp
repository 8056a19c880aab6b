// Violation: libnl outside src/os.
#include <netlink/msg.h>
