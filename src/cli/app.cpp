#include "cli/app.hpp"

#include "cli/cmd_firmware.hpp"
#include "cli/commands.hpp"
#include "cli/safe_output.hpp"

#include "common/strings.hpp"

#include <ibsetup/diagnostics.hpp>
#include <ibsetup/error.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace ibsetup::cli {

void print_error(const std::string& message)
{
  std::cerr << "ibsetup: error: " << util::escape_text(message) << '\n';
}

void print_warning(const std::string& message)
{
  std::cerr << "ibsetup: warning: " << util::escape_text(message) << '\n';
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
  7  apply failed; every change it made was rolled back (the report says what and why)
  8  another ibsetup run (apply or firmware --apply) holds the lock
  9  reboot required: firmware link types change at the next boot
     (/run/ibsetup/reboot-required lists the devices)

See ibsetup(8) and ibsetup-profile(5).)";

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  if (version) {
    std::cout << "ibsetup " << IBSETUP_VERSION << '\n';
    return 0;
  }
  try {
    if (app.get_subcommands().empty()) {
      std::cerr << app.help();
      return static_cast<int>(ExitCode::usage);
    }
    int code = profile_cmds.run();
    if (code < 0) {
      code = inventory_cmds.run();
    }
    if (code < 0) {
      code = render_cmds.run();
    }
    if (code < 0) {
      code = firmware_cmds.run();
    }
    if (code < 0 && render_cmds.offline()) {
      code = render_cmds.render_offline(pipeline_cmds.file(), pipeline_cmds.node(),
                                        pipeline_cmds.json());
    }
    if (code < 0) {
      code = pipeline_cmds.run();
    }
    if (code < 0) {
      code = check_cmds.run();
    }
    if (code < 0) {
      code = rdma_cmds.run();
    }
    if (code < 0) {
      code = report_cmds.run();
    }
    return code;
  } catch (const DiagnosticError& e) {
    // One diagnostic per line, each escaped on its own (Diagnostic::format).
    std::cerr << "ibsetup: error: " << e.what() << '\n';
    return static_cast<int>(e.code());
  } catch (const Error& e) {
    print_error(e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return static_cast<int>(ExitCode::internal);
  }
}

}  // namespace ibsetup::cli
