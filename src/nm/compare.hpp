#pragma once

#include <NetworkManager.h>

#include <string>
#include <vector>

namespace ibsetup::nm {

// The properties ("infiniband.mtu") in which NetworkManager's stored profile differs from the
// one ibsetup wants; empty when they match. Timestamps and secrets are not compared.
std::vector<std::string> differences(NMConnection* want, NMConnection* stored);

}  // namespace ibsetup::nm
