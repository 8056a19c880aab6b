#include "cli/app.hpp"

#include "cli/cmd_firmware.hpp"
#include "cli/cmd_partitions.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/safe_output.hpp"

#include "common/strings.hpp"
#include "inventory/reader_tables.hpp"

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <iostream>
#include <vector>

namespace ibsetup::cli {

namespace {

// Whether a flag was given and not as --flag=false (or 0, off, no).
bool flag_given(const CLI::Option* flag)
{
  if (flag == nullptr || flag->count() == 0) {
    return false;
  }
  const auto results = flag->results();
  if (results.empty()) {
    return true;
  }
  std::string last = results.back();
  std::transform(last.begin(), last.end(), last.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return last != "false" && last != "0" && last != "off" && last != "no";
}

const char* const k_footer = R"(Exit codes:
  0  success
  1  internal error (a bug in ibsetup; please report it)
  2  usage error (bad command line)
  3  invalid input (the profile or another input file; every problem is listed);
     partitions: profile hosts missing from the inventories, or a GUID on two ports
     (without --allow-missing)
  4  environment problem (missing file, permission or program on this host; standard
     output that cannot be written; a NetworkManager checkpoint another tool holds)
  5  a check failed; report: a host failed or did not answer; partitions --verify:
     a port differs
  6  plan --detailed-exitcode: changes are pending
  7  apply failed or was interrupted (SIGINT, SIGTERM, SIGHUP, standard output closed);
     every change it made was rolled back, firmware link types excepted (the report
     says what and why; with NetworkManager hung or gone, or an undo the kernel
     refused, what was not undone)
  8  another ibsetup run (apply or firmware --apply) holds the lock; render,
     apply --offline, partitions --output: another process has held the lock on the
     root (the output's directory) for 10 s
  9  reboot required: firmware link types change at the next boot
     (/run/ibsetup/reboot-required lists the ports)
  128+N  ended by signal N once what was done is printed: render, apply --offline,
     partitions --output, firmware --apply; apply after its last step

See ibsetup(8) and ibsetup-profile(5).)";

// An option given an empty value (`--expect "$NODES"` with NODES unset) is a usage error: read
// as absent, it would silently drop what the option asks for (report --expect would no longer
// miss a host that never answered). No option of ibsetup gives "" a meaning. Flags take no
// value and are skipped. Returns 0 or the exit code.
int refuse_empty_values(const CLI::App& app)
{
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* o : sub->get_options()) {
      if (o->count() == 0 || o->get_type_size() == 0) {
        continue;
      }
      const auto values = o->results();
      if (std::any_of(values.begin(), values.end(), [](const auto& v) { return v.empty(); })) {
        print_error(sub->get_name() + " " + o->get_name() +
                    ": an empty value (an unset shell variable?); give one or leave the "
                    "option out");
        return exit_code(ErrorKind::usage);
      }
    }
    if (const int code = refuse_empty_values(*sub)) {
      return code;
    }
  }
  return 0;
}

// CLI11 acts on --help before it notices an argument that names no subcommand, so
// `ibsetup partitionz --help` would print the main help and exit 0. The top level takes only
// flags, so its first other argument must be a subcommand. Returns 0 or the exit code.
int refuse_unknown_subcommand(const CLI::App& app, int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      return 0;
    }
    if (!arg.empty() && arg[0] == '-') {
      continue;
    }
    std::vector<std::string> names;
    const std::function<bool(const CLI::App*)> every;
    for (const CLI::App* sub : app.get_subcommands(every)) {
      if (sub->get_name() == arg) {
        return 0;
      }
      names.push_back(sub->get_name());
    }
    // Quoted only when plain: a hostile argument must not put control bytes on the terminal.
    const bool plain = arg.size() <= 64 && std::all_of(arg.begin(), arg.end(),
                                                       [](char c) { return c > ' ' && c < 0x7f; });
    const std::string near = plain ? util::closest_match(arg, names) : std::string();
    print_error((plain ? "'" + arg + "'" : std::string("the first argument")) +
                " is not a subcommand" +
                (near.empty() ? std::string() : "; did you mean '" + near + "'?") +
                " (ibsetup --help lists them)");
    return exit_code(ErrorKind::usage);
  }
  return 0;
}

enum : unsigned {
  k_profile = 1U << 0U,
  k_inventory = 1U << 1U,
  k_pipeline = 1U << 2U,  // with render, which adds apply --offline
  k_check = 1U << 3U,
  k_firmware = 1U << 4U,
  k_rdma = 1U << 5U,
  k_report = 1U << 6U,
  k_partitions = 1U << 7U,
  k_all = ~0U,
};

// The groups to build for this command line: the group of the subcommand its first word names,
// or all of them. The top level takes only flags, so that word is the subcommand.
unsigned groups_for(int argc, char** argv)
{
  static const std::map<std::string, unsigned> k_group_of = {
      {"validate", k_profile},  {"show", k_profile},  {"hosts", k_profile},
      {"inspect", k_inventory}, {"plan", k_pipeline}, {"apply", k_pipeline},
      {"render", k_pipeline},   {"check", k_check},   {"firmware", k_firmware},
      {"responder", k_rdma},    {"report", k_report}, {"partitions", k_partitions},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') {
      if (arg == "--") {
        break;
      }
      continue;
    }
    const auto it = k_group_of.find(arg);
    return it != k_group_of.end() ? it->second : k_all;
  }
  return k_all;
}

// What the command printed must have reached standard output: `partitions > file` on a full
// disk, or `render --json >&-`, must not exit 0 with the output cut short. A command that
// already failed keeps its own code, and is told all the same: a failed check whose report
// went nowhere must leave a trace for Slurm's or NHC's log. apply has said so itself (and
// moved its report to standard error).
int finish_output(int code, const SafeOutput& safe_output)
{
  errno = 0;
  std::cout.flush();
  if (std::cout.good()) {
    return code;
  }
  // The first failed write's reason: a stream that failed earlier (check's report cut half-
  // way) writes nothing at this flush, and errno says nothing.
  const int error = safe_output.stdout_error() != 0 ? safe_output.stdout_error() : errno;
  if (!output_loss_said()) {
    print_error(lost_output_text(error, work_done()));
  }
  // plan --detailed-exitcode's 6 is news, not a failure: lost output outranks it.
  return code != 0 && code != exit_code(ErrorKind::changes_pending)
             ? code
             : exit_code(ErrorKind::environment);
}

int run_command(int argc, char** argv)
{
  // This process holds a handful of descriptors and closes none while inspect's readers run
  // (check's watchdog polls its own pipe; libnm's D-Bus thread, when the NetworkManager plugin
  // is loaded, keeps its connection for the whole run): the readers' copies cost nothing here.
  inventory::set_private_reader_tables(true);
  CLI::App app{"ibsetup: configure IP over InfiniBand on HPC nodes from one cluster profile",
               "ibsetup"};
  app.footer(k_footer);
  // Set before the subcommands are added, which copy it. CLI11's own message quotes argv
  // ("--timeout = abc"): escaped like every other error, with ibsetup's prefix.
  app.failure_message([](const CLI::App* /*app*/, const CLI::Error& e) {
    return "ibsetup: error: " + util::escape_text(e.what()) +
           "\nRun with --help for more information.\n";
  });
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and exit");

  // Building every option of every subcommand was a third of the start-up (callgrind, issue
  // 15); a command line that names a subcommand builds only its group. Anything else (help,
  // a typo, no subcommand) builds them all, so the table only ever costs speed.
  const unsigned groups = groups_for(argc, argv);
  std::optional<ProfileCommands> profile_cmds;
  std::optional<InventoryCommands> inventory_cmds;
  std::optional<PipelineCommands> pipeline_cmds;
  std::optional<RenderCommands> render_cmds;
  std::optional<CheckCommands> check_cmds;
  std::optional<FirmwareCommands> firmware_cmds;
  std::optional<RdmaCommands> rdma_cmds;
  std::optional<ReportCommands> report_cmds;
  std::optional<PartitionsCommands> partitions_cmds;
  if ((groups & k_profile) != 0U) {
    profile_cmds.emplace(app);
  }
  if ((groups & k_inventory) != 0U) {
    inventory_cmds.emplace(app);
  }
  if ((groups & k_pipeline) != 0U) {
    pipeline_cmds.emplace(app);
    render_cmds.emplace(app, pipeline_cmds->apply_command());  // apply --offline is render's
  }
  if ((groups & k_check) != 0U) {
    check_cmds.emplace(app);
  }
  if ((groups & k_firmware) != 0U) {
    firmware_cmds.emplace(app);
  }
  if ((groups & k_rdma) != 0U) {
    rdma_cmds.emplace(app);
  }
  if ((groups & k_report) != 0U) {
    report_cmds.emplace(app);
  }
  if ((groups & k_partitions) != 0U) {
    partitions_cmds.emplace(app);
  }

  if (const int code = refuse_unknown_subcommand(app, argc, argv)) {
    return code;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : exit_code(ErrorKind::usage);
  }
  if (version) {
    std::cout << "ibsetup " << IBSETUP_VERSION << '\n';
    return 0;
  }
  if (const int code = refuse_empty_values(app)) {
    return code;
  }
  try {
    if (app.get_subcommands().empty()) {
      std::cerr << app.help();
      return exit_code(ErrorKind::usage);
    }
    // The table of commands: each group runs its subcommand when it was the one parsed and
    // returns -1 otherwise. `apply --offline` is render's, so it comes before apply.
    const std::function<int()> table[] = {
        [&] { return profile_cmds ? profile_cmds->run() : -1; },
        [&] { return inventory_cmds ? inventory_cmds->run() : -1; },
        [&] { return render_cmds ? render_cmds->run() : -1; },
        [&] { return firmware_cmds ? firmware_cmds->run() : -1; },
        [&] {
          return render_cmds && render_cmds->offline()
                     ? render_cmds->render_offline(pipeline_cmds->file(), pipeline_cmds->node(),
                                                   pipeline_cmds->json(), pipeline_cmds->dry_run(),
                                                   pipeline_cmds->quiet())
                     : -1;
        },
        [&] { return pipeline_cmds ? pipeline_cmds->run() : -1; },
        [&] { return check_cmds ? check_cmds->run() : -1; },
        [&] { return rdma_cmds ? rdma_cmds->run() : -1; },
        [&] { return report_cmds ? report_cmds->run() : -1; },
        [&] { return partitions_cmds ? partitions_cmds->run() : -1; },
    };
    if (render_cmds) {
      render_cmds->refuse_mixed_apply();
    }
    int code = -1;
    for (const auto& command : table) {
      code = command();
      if (code >= 0) {
        break;
      }
    }
    return code;
  } catch (const DiagnosticError& e) {
    // -q drops the warnings of an invalid profile too: only its errors are printed.
    const auto subs = app.get_subcommands();
    print_diagnostics(e.diagnostics(),
                      !subs.empty() && flag_given(subs.front()->get_option_no_throw("--quiet")));
    return exit_code(e.kind());
  } catch (const Error& e) {
    print_error(e.what());
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return exit_code(ErrorKind::internal);
  }
}

// A descriptor 0-2 closed at start would be the next file ibsetup opens: with `apply >&-` the
// lock file became standard output, took the progress lines, and every later apply refused it
// ("not a pid"). Each closed one is held by /dev/null opened so that it cannot be used, as
// glibc does for set-user-ID programs: reading 0 and writing 1 or 2 fail with EBADF, as on a
// closed descriptor, so a closed standard output still stops apply (README, exit code 7).
void hold_standard_descriptors()
{
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
      continue;
    }
    const int held = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) {  // the lowest free number is fd; not so if fd was taken since
      ::dup2(held, fd);
      ::close(held);
    }
  }
}

// A write that fails must fail, not end the process half-way: a reader gone (`| head`, a
// killed wrapper) raises SIGPIPE and a file past `ulimit -f` SIGXFSZ, whose default action
// would kill apply between two link changes, firmware between its set and the reboot
// marker, check before Slurm hears of a failed node, or render between two renames. Ignored,
// the write fails with EPIPE or EFBIG, which each writer reports (a closed standard output:
// exit 4 in finish_output). Programs ibsetup runs start with every signal at its default
// (common/process.cpp).
void ignore_write_signals()
{
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

}  // namespace

int run(int argc, char** argv)
{
  ignore_write_signals();
  hold_standard_descriptors();
  const SafeOutput safe_output;
  const int code = finish_output(run_command(argc, argv), safe_output);
  // After every message, the failed write to standard output's included. Still here after
  // the signal was raised (ibsetup as a container's first process, whose own signal is not
  // fatal): the exit status a shell gives a process ended by it.
  if (const int signal = release_stop_signals(); signal != 0) {
    return 128 + signal;
  }
  return code;
}

}  // namespace ibsetup::cli
