// Violation through a probe header.
#include <string>

#include "probe/carrier.hpp"
