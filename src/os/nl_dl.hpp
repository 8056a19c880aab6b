// libnl-3 is loaded when apply first sends a change, not linked: inspect, check, plan and a
// no-op apply read rtnetlink with their own parser (netlink_attrs.hpp), and a linked library
// costs every start of every command (issue 15). nl_dl.cpp defines, inside the library, every
// libnl function the code calls; each forwards to the real one. Until libnl-3.so.200 loads,
// the functions fail as libnl documents (NULL or a negative NLE_ error) and nl_load_error()
// says why.
#pragma once

#include <string>

namespace ibsetup::os {

// Loads libnl-3.so.200 if it is not loaded yet; empty when it is, else why not
// ("libnl-3.so.200 cannot be loaded (...): ...").
std::string nl_load_error();

}  // namespace ibsetup::os
