// The names a profile gives to things on the host: interfaces, and the RDMA devices they sit on.
#include "common/strings.hpp"
#include "profile/reader.hpp"

namespace ibsetup::profile::detail {

namespace {

// The characters both kinds of name hold: ASCII letters, digits, '_', '.' and '-'.
bool name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

std::string interface_name_problem(const std::string& name)
{
  if (name.empty()) {
    return "interface name is empty";
  }
  if (name.size() > static_cast<size_t>(k_ifname_max)) {
    return "interface name '" + name + "' is " + std::to_string(name.size()) +
           " bytes; Linux allows at most 15";
  }
  if (name == "." || name == "..") {
    return "'" + name + "' is not a valid interface name";
  }
  // The kernel refuses only '/', ':' and whitespace, but the name also lands in ifcfg files
  // (sourced by bash), udev rules, NetworkManager's connection ids and file names, and the
  // arguments of ip and ifup: the set every one of them takes literally is letters, digits,
  // '_', '.' and '-', and not '-' first (an option to those tools). '@' is left out because
  // ip prints children as "ib0.8001@ib0".
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!name_char(c) || (c == '-' && i == 0)) {
      return "interface name '" + util::escape_text(name) + "' " +
             (c == '-' ? "starts with " : "contains ") + util::describe_char(name, i) +
             "; names may hold only ASCII letters, digits, '_', '.' and '-' (not first)";
    }
  }
  return {};
}

// An RDMA device name as the kernel and udev give them (mlx5_0, hfi1_0, rxe0, mlx5_bond_0,
// rocep59s0f0): at most 63 bytes (IB_DEVICE_NAME_MAX with its NUL) of ASCII letters, digits,
// '_', '.' and '-'. The kernel itself refuses little more than '/', but the name is looked up
// under /sys/class/infiniband and printed in every report: a space, a control or a bidi
// character there is a typo or a trick, never a device.
std::string device_name_problem(const std::string& name)
{
  constexpr size_t k_max = 63;
  if (name.empty()) {
    return "device name is empty";
  }
  if (name.size() > k_max) {
    // excerpt() ends a long name with its size: "'aaa... (108 bytes)'".
    return "device name '" + util::excerpt(util::escape_text(name), 80) +
           "' is longer than an RDMA device name's 63 bytes";
  }
  if (name == "." || name == "..") {
    return "'" + name + "' is not an RDMA device name";
  }
  for (size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i])) {
      return "device name '" + util::escape_text(name) + "' contains " +
             util::describe_char(name, i) +
             "; RDMA device names (mlx5_0, hfi1_0) hold only ASCII letters, digits, '_', '.' "
             "and '-'";
    }
  }
  return {};
}

}  // namespace ibsetup::profile::detail
