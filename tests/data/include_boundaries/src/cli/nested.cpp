// Violation two levels down.
#include "check/via.hpp"
