// Allowed: libnl in src/os.
#include <netlink/netlink.h>
