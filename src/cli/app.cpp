#include "cli/app.hpp"

#include "cli/cmd_firmware.hpp"
#include "cli/cmd_partitions.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/safe_output.hpp"

#include "common/strings.hpp"

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/error.hpp>
#include <ibsetup/profile.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <vector>

namespace ibsetup::cli {

void print_error(const std::string& message)
{
  std::cerr << "ibsetup: error: " << util::escape_text(message) << '\n';
}

void print_warning(const std::string& message)
{
  std::cerr << "ibsetup: warning: " << util::escape_text(message) << '\n';
}

void exit_now(int code)
{
  std::cout.flush();
  std::cerr.flush();
  // Not exit(): static destructors and atexit handlers would run under the feet of the main
  // thread, which is still inside the library.
  _exit(code);
}

void print_warnings(const std::vector<std::string>& warnings, bool quiet)
{
  if (quiet) {
    return;
  }
  for (const auto& w : warnings) {
    print_warning(w);
  }
}

void print_warnings(const std::vector<Diagnostic>& warnings, bool quiet)
{
  if (quiet) {
    return;
  }
  for (const auto& w : warnings) {
    std::cerr << w.format() << '\n';
  }
}

profile::ResolvedNode resolve_node_arg(const profile::Profile& profile,
                                       const std::string& node_flag)
{
  if (node_flag.empty()) {
    // The library's message suggests --node: right when the name came from the host name.
    return profile::resolve_node(profile, profile::default_node_name());
  }
  if (profile.group_of_host.count(node_flag) == 0) {
    std::string groups;
    for (const auto& group : profile.groups) {
      groups += (groups.empty() ? "" : ", ") +
                (group.hosts_expression ? *group.hosts_expression : std::string("?"));
    }
    std::vector<std::string> hosts;
    hosts.reserve(profile.group_of_host.size());
    for (const auto& h : profile.group_of_host) {
      hosts.push_back(h.first);
    }
    std::sort(hosts.begin(), hosts.end());  // the same suggestion on every run
    // A host name has at most 253 characters; a longer argument gets no (costly) suggestion.
    const std::string near =
        node_flag.size() > 253 ? std::string() : util::closest_match(node_flag, hosts);
    throw InputError(profile.file + ": --node " + node_flag + ": host '" + node_flag +
                     "' is not in any node group (" + groups + ")" +
                     (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
  }
  return profile::resolve_node(profile, node_flag);
}

namespace {

const char* const k_footer = R"(Exit codes:
  0  success
  1  internal error (a bug in ibsetup; please report it)
  2  usage error (bad command line)
  3  invalid input (the profile or another input file; every problem is listed)
  4  environment problem (missing file, permission or program on this host)
  5  a check failed
  6  plan --detailed-exitcode: changes are pending
  7  apply failed or was interrupted (SIGINT, SIGTERM, SIGHUP, standard output closed);
     every change it made was rolled back (the report says what and why)
  8  another ibsetup run (apply or firmware --apply) holds the lock
  9  reboot required: firmware link types change at the next boot
     (/run/ibsetup/reboot-required lists the devices)

See ibsetup(8) and ibsetup-profile(5).)";

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

}  // namespace

int run(int argc, char** argv)
{
  const SafeOutput safe_output;
  CLI::App app{"ibsetup: configure IP over InfiniBand on HPC nodes from one cluster profile",
               "ibsetup"};
  app.footer(k_footer);
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and exit");

  ProfileCommands profile_cmds(app);
  InventoryCommands inventory_cmds(app);
  PipelineCommands pipeline_cmds(app);
  RenderCommands render_cmds(app, pipeline_cmds.apply_command());
  CheckCommands check_cmds(app);
  FirmwareCommands firmware_cmds(app);
  RdmaCommands rdma_cmds(app);
  ReportCommands report_cmds(app);
  PartitionsCommands partitions_cmds(app);

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
  try {
    if (app.get_subcommands().empty()) {
      std::cerr << app.help();
      return exit_code(ErrorKind::usage);
    }
    // The table of commands: each group runs its subcommand when it was the one parsed and
    // returns -1 otherwise. `apply --offline` is render's, so it comes before apply.
    const std::function<int()> table[] = {
        [&] { return profile_cmds.run(); },
        [&] { return inventory_cmds.run(); },
        [&] { return render_cmds.run(); },
        [&] { return firmware_cmds.run(); },
        [&] {
          return render_cmds.offline()
                     ? render_cmds.render_offline(pipeline_cmds.file(), pipeline_cmds.node(),
                                                  pipeline_cmds.json(), pipeline_cmds.dry_run(),
                                                  pipeline_cmds.quiet())
                     : -1;
        },
        [&] { return pipeline_cmds.run(); },
        [&] { return check_cmds.run(); },
        [&] { return rdma_cmds.run(); },
        [&] { return report_cmds.run(); },
        [&] { return partitions_cmds.run(); },
    };
    int code = -1;
    for (const auto& command : table) {
      code = command();
      if (code >= 0) {
        break;
      }
    }
    return code;
  } catch (const DiagnosticError& e) {
    // One diagnostic per line, each escaped on its own (Diagnostic::format).
    std::cerr << "ibsetup: error: " << e.what() << '\n';
    return exit_code(e.kind());
  } catch (const Error& e) {
    print_error(e.what());
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return exit_code(ErrorKind::internal);
  }
}

}  // namespace ibsetup::cli
