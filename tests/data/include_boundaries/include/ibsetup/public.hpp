// Violation: a public header with libnm.
#pragma once

#include <NetworkManager.h>
