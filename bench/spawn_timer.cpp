// Times whole commands the way a user runs them: posix_spawn, wait, CLOCK_MONOTONIC around
// both. The shell's $(date +%s%N) costs two fork+exec per sample, about 2-3 ms here, which
// hides differences of that size between the commands being compared.
//
// Usage: bench_spawn_timer RUNS [--allow-fail] [--samples FILE] GROUP...
//   GROUP:  -- [--label TEXT] [--setup] CMD [ARG...]
// A group is a command and its arguments. Timed groups run interleaved, RUNS rounds of
// A B C A B C ..., so that a noisy neighbour hits them alike; each runs once untimed first to warm
// the page cache and dentries. A group marked --setup is not timed: it runs before every sample
// (and the warm-up) of the next timed group, for state the timed command must find fresh (a
// namespace without the addresses the previous sample added). Several setup groups in a row all
// run, in order. Wrap the timer in `ip netns exec NS` rather than each command, so that no sample
// pays a namespace entry.
// Every command gets stdin, stdout and stderr on /dev/null (stdin too: a bench script run by
// `bash -s` is read from stdin, which a child must not eat); setups keep stderr, to say why they
// failed. A command that exits non-zero stops the bench with status 2, unless it is timed and
// --allow-fail is given (ibstat exits 1 on a tree without umad); a failing setup always stops it.
//
// Output, one line per timed group: MEDIAN P10 P90 LABEL (milliseconds; LABEL defaults to the
// command line), then one line on the machine's load over the whole run, from /proc/loadavg and
// /proc/stat at start and end, and this process's children (getrusage):
//   load: loadavg 0.52 -> 1.10; cpu busy 55% of 2 CPUs over 12.3 s (this bench 49%, rest 6%)
// With --samples FILE, FILE gets every sample as well, one line per timed group: LABEL, a tab,
// then the RUNS times in round order, so that the benches can pair the commands' samples of
// one round (bench/lib.sh's bench_compare: a slow spell of the machine slows both of a pair).
// "this bench" is the CPU time of the commands the timer ran (setups included), so that a busy
// neighbour shows as "rest"; daemons the commands talk to (NetworkManager) count as rest too.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Group {
  std::vector<char*> argv;  // null-terminated once parsing is done
  std::string label;
  bool setup = false;
};

struct Command {
  std::vector<const Group*> setups;
  const Group* timed = nullptr;
  std::vector<double> samples;
};

// A snapshot of what the load line compares: CPU jiffies (all CPUs), the 1-minute load
// average, and the CPU time of this process's reaped children.
struct LoadSnapshot {
  unsigned long long busy = 0;
  unsigned long long total = 0;
  std::string loadavg = "?";
  double children_cpu_s = 0;
  std::chrono::steady_clock::time_point when;
};

LoadSnapshot take_snapshot()
{
  LoadSnapshot s;
  s.when = std::chrono::steady_clock::now();
  std::ifstream stat("/proc/stat");
  std::string cpu;
  // user nice system idle iowait irq softirq steal; guest time is already inside user.
  unsigned long long v[8] = {};
  if (stat >> cpu && cpu == "cpu") {
    for (auto& x : v) {
      stat >> x;
    }
    for (auto x : v) {
      s.total += x;
    }
    s.busy = s.total - v[3] - v[4];
  }
  std::ifstream avg("/proc/loadavg");
  avg >> s.loadavg;
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  s.children_cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return s;
}

void print_load(const LoadSnapshot& a, const LoadSnapshot& b)
{
  const double seconds = std::chrono::duration<double>(b.when - a.when).count();
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const double total = static_cast<double>(b.total - a.total);
  const double busy = total > 0 ? 100.0 * static_cast<double>(b.busy - a.busy) / total : 0;
  const double ours = seconds > 0 ? 100.0 * (b.children_cpu_s - a.children_cpu_s) /
                                        (seconds * static_cast<double>(cpus))
                                  : 0;
  std::printf(
      "load: loadavg %s -> %s; cpu busy %.0f%% of %ld CPUs over %.1f s (this bench %.0f%%, "
      "rest %.0f%%)\n",
      a.loadavg.c_str(), b.loadavg.c_str(), busy, cpus, seconds, ours, std::max(0.0, busy - ours));
}

// Runs one command to completion; returns its spawn-to-exit time in milliseconds.
double run_once(const Group& g, bool allow_fail)
{
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (!g.setup) {
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, g.argv[0], &actions, nullptr, g.argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::fprintf(stderr, "bench_spawn_timer: %s: %s\n", g.argv[0], std::strerror(rc));
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
  if ((g.setup || !allow_fail) && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    if (WIFEXITED(status)) {
      std::fprintf(stderr, "bench_spawn_timer: %s%s failed (exit %d)\n", g.setup ? "setup " : "",
                   g.label.c_str(), WEXITSTATUS(status));
    } else {
      std::fprintf(stderr, "bench_spawn_timer: %s%s failed (signal %d)\n", g.setup ? "setup " : "",
                   g.label.c_str(), WTERMSIG(status));
    }
    std::exit(2);
  }
  return std::chrono::duration<double, std::milli>(end - start).count();
}

double sample(const Command& c, bool allow_fail)
{
  for (const Group* s : c.setups) {
    run_once(*s, false);
  }
  return run_once(*c.timed, allow_fail);
}

double percentile(std::vector<double> v, double p)
{
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(std::lround(p * static_cast<double>(v.size() - 1)));
  return v[i];
}

// Splits argv into groups at each "--"; options are recognised only where they are listed.
bool parse(int argc, char** argv, bool* allow_fail, const char** samples,
           std::vector<Group>* groups)
{
  int i = 2;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strcmp(argv[i], "--allow-fail") == 0) {
      *allow_fail = true;
    } else if (std::strcmp(argv[i], "--samples") == 0 && i + 1 < argc && argv[i + 1][0] != '\0') {
      *samples = argv[++i];
    } else {
      return false;
    }
  }
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") != 0) {
      return false;
    }
    Group g;
    for (++i; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
      if (g.argv.empty() && std::strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
        g.label = argv[++i];
      } else if (g.argv.empty() && std::strcmp(argv[i], "--setup") == 0) {
        g.setup = true;
      } else {
        g.argv.push_back(argv[i]);
      }
    }
    --i;
    if (g.argv.empty()) {
      return false;
    }
    if (g.label.empty()) {
      for (char* a : g.argv) {
        g.label += (g.label.empty() ? "" : " ") + std::string(a);
      }
    }
    if (g.label.find_first_of("\t\n") != std::string::npos) {
      // A label is one field of one line of the samples file.
      std::fprintf(stderr, "bench_spawn_timer: a label may not hold a tab or a newline\n");
      return false;
    }
    g.argv.push_back(nullptr);
    groups->push_back(std::move(g));
  }
  return !groups->empty() && !groups->back().setup;
}

// Writes the samples file (opened before the first run, so that a bad path costs no runs).
bool write_samples(std::FILE* f, const char* path, const std::vector<Command>& commands)
{
  for (const auto& c : commands) {
    std::fprintf(f, "%s\t", c.timed->label.c_str());
    for (size_t i = 0; i < c.samples.size(); ++i) {
      std::fprintf(f, i == 0 ? "%.3f" : " %.3f", c.samples[i]);
    }
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "bench_spawn_timer: %s: %s\n", path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv)
{
  const char* usage =
      "usage: %s RUNS [--allow-fail] [--samples FILE] -- [--label TEXT] [--setup] CMD [ARG...] "
      "[-- ...]\n"
      "(the last group must be a timed command; see the header of bench/spawn_timer.cpp)\n";
  bool allow_fail = false;
  const char* samples = nullptr;
  std::vector<Group> groups;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 0;
  if (runs < 1 || !parse(argc, argv, &allow_fail, &samples, &groups)) {
    std::fprintf(stderr, usage, argv[0]);
    return 2;
  }
  std::FILE* samples_file = samples != nullptr ? std::fopen(samples, "we") : nullptr;
  if (samples != nullptr && samples_file == nullptr) {
    std::fprintf(stderr, "bench_spawn_timer: %s: %s\n", samples, std::strerror(errno));
    return 2;
  }
  std::vector<Command> commands;
  std::vector<const Group*> pending;
  for (const auto& g : groups) {
    if (g.setup) {
      pending.push_back(&g);
    } else {
      commands.push_back({pending, &g, {}});
      pending.clear();
    }
  }
  const LoadSnapshot first = take_snapshot();
  for (const auto& c : commands) {
    sample(c, allow_fail);
  }
  for (int r = 0; r < runs; ++r) {
    for (auto& c : commands) {
      c.samples.push_back(sample(c, allow_fail));
    }
  }
  const LoadSnapshot last = take_snapshot();
  for (const auto& c : commands) {
    std::printf("%.2f %.2f %.2f %s\n", percentile(c.samples, 0.5), percentile(c.samples, 0.1),
                percentile(c.samples, 0.9), c.timed->label.c_str());
  }
  print_load(first, last);
  return samples_file != nullptr && !write_samples(samples_file, samples, commands) ? 2 : 0;
}
