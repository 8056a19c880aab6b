// A program outside the project that uses the installed libibsetup: prints the hosts of a
// profile and the expansion of a hostlist.
#include <ibsetup/hostlist.hpp>
#include <ibsetup/profile.hpp>

#include <iostream>

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::cerr << "usage: consumer PROFILE\n";
    return 2;
  }
  const auto profile = ibsetup::profile::load_profile(argv[1]);
  for (const auto& group : profile.groups) {
    for (const auto& host : group.hosts) {
      std::cout << host << '\n';
    }
  }
  for (const auto& host : ibsetup::expand_hostlist("x[1-2]")) {
    std::cout << host << '\n';
  }
  return 0;
}
