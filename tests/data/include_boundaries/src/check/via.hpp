// Carries librdmacm two levels down.
#pragma once

#include "probe/carrier.hpp"
