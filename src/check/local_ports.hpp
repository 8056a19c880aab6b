// Pieces of check_local shared between its files.
#pragma once

#include <ibsetup/check.hpp>

namespace ibsetup::check::detail {

void add(std::vector<Result>& out, const char* id, const std::string& subject, bool ok,
         const std::string& expected, const std::string& observed, const std::string& message);
void skip(std::vector<Result>& out, const char* id, const std::string& subject,
          const std::string& why);
const inventory::Device* find_device(const inventory::Host& host, const profile::HcaSpec& spec);

void check_ports(const profile::ResolvedNode& node, const inventory::Host& host,
                 std::vector<Result>& out);
// Whether check_ports looks at a P_Key table: only port.pkeys does, for each pkey child the
// node declares. Without one, observing the node skips the tables (128 files a port).
bool reads_pkey_tables(const profile::ResolvedNode& node);
void check_ipoib(const profile::ResolvedNode& node, const inventory::Host& host,
                 const LocalOptions& options, std::vector<Result>& out);

}  // namespace ibsetup::check::detail
