// Times whole commands the way a user runs them: posix_spawn, wait, CLOCK_MONOTONIC around
// both. The shell's $(date +%s%N) costs two fork+exec per sample, about 2-3 ms here, which
// hides differences of that size between the commands being compared.
//
// Usage: bench_spawn_timer RUNS [--allow-fail] -- CMD [ARG...] [-- CMD [ARG...]] ...
// Runs the commands interleaved (A B C A B C ...) so that a noisy neighbour hits them alike,
// with stdin, stdout and stderr on /dev/null, and prints one line per command: the median and the
// 10th/90th percentiles in milliseconds, then the command. A command that exits non-zero
// stops the bench unless --allow-fail is given (ibstat exits 1 on a tree without umad).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

double run_once(const std::vector<char*>& argv, bool allow_fail)
{
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // stdin too: a bench script run by `bash -s` is read from stdin, which a child must not eat.
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::fprintf(stderr, "bench_spawn_timer: %s: %s\n", argv[0], std::strerror(rc));
    std::exit(2);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      std::perror("bench_spawn_timer: waitpid");
      std::exit(2);
    }
  }
  const auto end = std::chrono::steady_clock::now();
  if (!allow_fail && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    std::fprintf(stderr, "bench_spawn_timer: %s failed (status %d)\n", argv[0], status);
    std::exit(2);
  }
  return std::chrono::duration<double, std::milli>(end - start).count();
}

double percentile(std::vector<double> v, double p)
{
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[i];
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s RUNS [--allow-fail] -- CMD [ARG...] [-- CMD ...]\n", argv[0]);
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  bool allow_fail = false;
  std::vector<std::vector<char*>> commands;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--allow-fail") == 0 && commands.empty()) {
      allow_fail = true;
    } else if (std::strcmp(argv[i], "--") == 0) {
      commands.emplace_back();
    } else if (!commands.empty()) {
      commands.back().push_back(argv[i]);
    }
  }
  commands.erase(std::remove_if(commands.begin(), commands.end(),
                                [](const std::vector<char*>& c) { return c.empty(); }),
                 commands.end());
  if (runs < 1 || commands.empty()) {
    std::fprintf(stderr, "%s: need RUNS >= 1 and at least one command\n", argv[0]);
    return 2;
  }
  std::vector<std::vector<double>> samples(commands.size());
  for (auto& c : commands) {
    c.push_back(nullptr);
    run_once(c, allow_fail);  // warm the page cache and dentries before timing
  }
  for (int r = 0; r < runs; ++r) {
    for (size_t c = 0; c < commands.size(); ++c) {
      samples[c].push_back(run_once(commands[c], allow_fail));
    }
  }
  for (size_t c = 0; c < commands.size(); ++c) {
    std::string line;
    for (char* const* a = commands[c].data(); *a != nullptr; ++a) {
      line += (line.empty() ? "" : " ") + std::string(*a);
    }
    std::printf("%.2f %.2f %.2f %s\n", percentile(samples[c], 0.5), percentile(samples[c], 0.1),
                percentile(samples[c], 0.9), line.c_str());
  }
  return 0;
}
