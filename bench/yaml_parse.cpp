// The baseline for bench/profile_validate.sh: a bare yaml-cpp parse of a file, nothing more.
#include <yaml-cpp/yaml.h>

#include <cstdio>

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: yaml_parse FILE\n");
    return 2;
  }
  const YAML::Node root = YAML::LoadFile(argv[1]);
  return root.IsMap() ? 0 : 1;
}
