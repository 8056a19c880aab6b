// ibsetup: configure IP over InfiniBand from one cluster profile. The work is in libibsetup;
// this is only the command line.
#include "cli/app.hpp"

int main(int argc, char** argv)
{
  return ibsetup::cli::run(argc, argv);
}
