// Allowed: libnm in src/nm.
#include <NetworkManager.h>
