// Runs each harness input once, without libFuzzer: `fuzz_replay_NAME PATH...`, where a
// directory stands for every regular file in it. Lets the normal (GCC, uninstrumented) test
// build replay the corpora, so an input that once crashed keeps passing through the parser.
#include "fuzz_common.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<std::string> inputs_of(const std::filesystem::path& path)
{
  if (!std::filesystem::is_directory(path)) {
    return {path.string()};
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.is_regular_file()) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());  // a failure names the same file on every run
  return files;
}

}  // namespace

int main(int argc, char** argv)
{
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> files = inputs_of(argv[i]);
    if (files.empty()) {
      std::cerr << "fuzz replay: " << argv[i] << ": no inputs\n";
      return 1;
    }
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "fuzz replay: " << file << ": cannot be read\n";
        return 1;
      }
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // Named before the run, so the input that aborts is the last one printed.
      std::cout << "replay " << file << '\n' << std::flush;
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::cout << "fuzz replay: " << count << " inputs, no crash\n";
  return 0;
}
