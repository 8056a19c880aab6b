// The profile reaching into the checks.
#include "check/plain.hpp"
