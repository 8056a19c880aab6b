// Where the port GUIDs come from (issue 16 item 1, SRC): `-` (JSON lines on standard input, as
// `clush -w HOSTS ibsetup inspect --json` prints them: "HOST: {...}", or bare objects whose
// "host" names the host), a directory of HOST.json files, or an ibnetdiscover topology file
// (node descriptions "HOST HCA", as rdma-ndd sets them).
#pragma once

#include "partitions/model.hpp"

#include <ibsetup/export.hpp>

#include <string>

namespace ibsetup::partitions {

// Reads SRC ("-" reads standard input). Bad lines and files become located problems in the
// result, never an exception; an unreadable SRC (missing path, permission) throws InputError.
IBSETUP_EXPORT Inventories read_inventories(const std::string& src);

// The inventory of a profile's host, or nullptr. The readers key hosts by their short name
// (clush and the files may name them either way); a profile may name its hosts in full, so a
// full name that has no inventory of its own finds its short name's.
const InventoryHost* find_inventory(const Inventories& inventories, const std::string& host);

}  // namespace ibsetup::partitions
