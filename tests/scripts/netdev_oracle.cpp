// Prints the netdevs this process sees, read two ways: the link dump (what a live inspect now
// uses) and the sysfs walk (checked against ibstat by oracle_ibstat). netdev_oracle_test.sh
// runs it in a network namespace full of odd netdevs and compares the two outputs.
// Usage: netdev_oracle netlink|sysfs
#include "inventory/netdev_source.hpp"

#include <cstdio>
#include <cstring>
#include <exception>

int main(int argc, char** argv)
{
  using namespace ibsetup::inventory;
  if (argc != 2 || (std::strcmp(argv[1], "netlink") != 0 && std::strcmp(argv[1], "sysfs") != 0)) {
    std::fprintf(stderr, "usage: netdev_oracle netlink|sysfs\n");
    return 2;
  }
  try {
    const auto source = make_netlink_netdev_source();
    // Every netdev is named, so that none is left out for not being IPoIB.
    Options o;
    for (const auto& r : source->netdevs()) {
      o.netdev_names.push_back(r.netdev.name);
    }
    const bool netlink = std::strcmp(argv[1], "netlink") == 0;
    std::fputs(host_to_json(inspect(o, netlink ? source.get() : nullptr)).c_str(), stdout);
    std::fputc('\n', stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netdev_oracle: %s\n", e.what());
    return 1;
  }
  return 0;
}
