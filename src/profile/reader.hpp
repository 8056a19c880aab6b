// Turns a parsed YAML document into the typed profile model. Checks each value on its own
// (types, ranges, spelling); rules that relate values to each other live in validate.cpp.
#pragma once

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/profile.hpp>

#include "profile/reader_fields.hpp"

namespace ibsetup::profile::detail {

void read_profile(const YamlNode& root, Profile& profile, Diagnostics& diags);

// Port numbers are 8 bits and 255 is no port (a forwarding table's "drop", OpenSM's
// OSM_NO_PATH): a port is 1-254, as the partitions' inventories take it, so that every port a
// profile declares is one they can name.
constexpr int k_max_port = 254;

// One `hcas:` entry of a group (reader_hca.cpp).
void read_hca(const Entry& item, HcaSpec& hca, Diagnostics& diags);
// An RDMA device name that device_name_problem accepts.
Setting<std::string> read_device_name(const Entry& e, Diagnostics& diags);

// The optional `partitions:` section (reader_partitions.cpp).
void read_partitions(const Entry& section, Profile& profile, Diagnostics& diags);

// A group's `checks.mpi` mapping (reader_checks_mpi.cpp).
void read_mpi_checks(const Entry& section, Group& group, Diagnostics& diags);
// checks.bandwidth and checks.latency of a group, either may be null (reader_perf.cpp).
void read_perf_checks(const Entry* bandwidth, const Entry* latency, Group& group,
                      Diagnostics& diags);

// Why name cannot be a Linux interface name, or "" when it can (names.cpp).
std::string interface_name_problem(const std::string& name);
// Why name cannot be an RDMA device name, or "" when it can (names.cpp).
std::string device_name_problem(const std::string& name);

}  // namespace ibsetup::profile::detail
