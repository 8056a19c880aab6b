// Firmware link type (LINK_TYPE_Pn) of VPI adapters: read and set with mstflint's mstconfig,
// compared with the profile's link_type and with what the running ports show.
#pragma once
#pragma GCC visibility push(default)  // the public API: export.hpp says why

#include <ibsetup/error.hpp>
#include <ibsetup/inventory.hpp>
#include <ibsetup/profile.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsetup::firmware {

// Where the marker for kickstart and automation goes (StepOptions::reboot_marker by default).
extern const char* const k_reboot_marker;

// mstconfig output, parsed. Only what ibsetup needs is interpreted; every other line must be
// one of mstconfig's known lines, or parsing fails.
struct MstconfigOutput {
  std::optional<std::string> device;       // "0000:04:00.0", "/dev/mst/mt4123_pciconf0"
  std::optional<std::string> device_type;  // "ConnectX6"
  std::vector<std::string> columns;        // "Default", "Current", "Next Boot", "New"
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  std::vector<std::string> errors;    // "-E- " lines, without the prefix
  std::vector<std::string> warnings;  // "-W- " lines
  bool semaphore_denied = false;      // "write counter to semaphore: Operation not permitted"
  bool reboot_notice = false;         // "-I- Please reboot machine ..."
  bool applied = false;               // "Applying... Done!"

  // The parameter's value in column ("Next Boot" falls back to the only value when the
  // output has no header, as with `| grep`); nullopt when absent.
  std::optional<std::string> value(const std::string& name,
                                   const std::string& column = "Next Boot") const;
};

// Thrown when mstconfig output has a line ibsetup does not understand.
class ParseError : public EnvironmentError {
public:
  ParseError(int line, const std::string& text);
  int line() const { return m_line; }

private:
  int m_line;
};

// Parses the output of one mstconfig run (stdout and stderr concatenated). Throws ParseError
// quoting the first line it cannot read.
MstconfigOutput parse_mstconfig(const std::string& text);

// "IB(1)", "ETH(2)", "VPI(3)", "ETH", "2" -> the link type; nullopt for anything else.
std::optional<profile::LinkType> parse_link_type(const std::string& value);

// mstconfig's name for a link type: "IB", "ETH", "VPI"; and its number: 1, 2, 3.
const char* mst_name(profile::LinkType type);
int mst_value(profile::LinkType type);

// The adapter's firmware configuration tool. The real one runs mstconfig; tests inject fakes.
class Tool {
public:
  virtual ~Tool() = default;
  // Next-boot link type of each port in ports. Throws EnvironmentError with a specific message
  // (tool missing, device cannot be opened, unsupported device, fixed link type, bad output).
  virtual std::vector<std::pair<int, profile::LinkType>> query(const std::string& pci,
                                                               const std::vector<int>& ports) = 0;
  // Sets the next-boot link type of the given ports. Throws EnvironmentError on failure.
  virtual void set(const std::string& pci,
                   const std::vector<std::pair<int, profile::LinkType>>& values) = 0;
};

// mstconfig at program (a path), or found on the clean PATH when program is empty. Throws
// EnvironmentError naming the mstflint package when it is not installed.
std::unique_ptr<Tool> make_mstconfig(const std::string& program, std::chrono::milliseconds timeout);

struct PortLinkType {
  int port = 0;      // the HCA's port as sysfs numbers it
  int physical = 0;  // the card's physical port (physical_port()); 0 = not worked out: port
  profile::LinkType desired = profile::LinkType::ib;
  std::optional<profile::LinkType> next_boot;                          // from the firmware
  std::optional<inventory::Reading<inventory::LinkLayer>> link_layer;  // the running port's

  bool differs() const { return next_boot != desired; }
  // n of LINK_TYPE_Pn.
  int mst_port() const { return physical > 0 ? physical : port; }
  // The running port does not match the next-boot link type (VPI matches either). A port
  // whose running type cannot be read is not pending; Report::reboot_required() also counts
  // such a port when that run set it.
  bool reboot_pending() const;
};

struct DeviceLinkTypes {
  std::string device;  // mlx5_0 (the PCI address when the host has no such device name)
  std::string pci;
  std::string card;  // what mstconfig is run on: the lowest PCI function of this card on the host
  std::vector<PortLinkType> ports;

  bool differs() const;
  bool reboot_pending() const;
};

// The node's firmware link types: desired, next boot, running.
struct State {
  std::string host;
  bool declared = false;  // the profile sets link_type for this node
  bool queried = false;   // next-boot values were read from the firmware
  std::vector<DeviceLinkTypes> devices;
  std::vector<std::string> warnings;  // IPoIB declared on a port that is or will be Ethernet
};

// One setting that mstconfig accepted and a second query confirmed.
struct Change {
  std::string device;
  std::string pci;
  int port = 0;
  int physical = 0;
  std::optional<profile::LinkType> from;
  profile::LinkType to = profile::LinkType::ib;
};

struct Report {
  State state;               // after the changes (what was confirmed)
  std::vector<Change> done;  // in order; kept even when a later device failed
  std::optional<std::string> failure;

  bool ok() const { return !failure; }
  // A port is pending (PortLinkType::reboot_pending), or done set it while its running type
  // cannot be read.
  bool reboot_required() const;
};

// The physical port of the card (n of LINK_TYPE_Pn) that port of device (at PCI address pci)
// is. mstconfig configures a whole card, whichever of its PCI functions it is given, while
// sysfs numbers ports per HCA, and the two drivers lay cards out differently:
// - mlx4 (ConnectX-3): one PCI function with ports 1..n, so an HCA with more than one sysfs
//   port keeps its sysfs numbers;
// - mlx5 (ConnectX-4 and newer): one PCI function, and one HCA with a single port 1, per
//   physical port, so an HCA with one sysfs port (or none) is physical port function + 1.
// A single-port HCA on function 2 or higher (a virtual function, or a topology ibsetup does not
// know) says nothing about its physical port: InputError naming the device and the function.
// So is a port other than 1 declared on a single-port HCA. path names the profile's HCA.
int physical_port(const inventory::Device& device, const std::string& pci, int port,
                  const std::string& path);

// Whether the profile declares a link type (HCA or port) for the node.
bool declares_link_type(const profile::ResolvedNode& node);

// Queries every declared HCA (all of them before anything is set), one mstconfig run per card
// (the HCAs whose PCI addresses differ only in the function); with no tool, the next-boot
// values stay unknown. Throws InputError when a declared HCA is not on the host, when its
// physical port cannot be told (physical_port()), or when two declarations give one physical
// port different link types; EnvironmentError when one has no PCI address or the tool fails.
// Also warns about IPoIB interfaces on ports that are or will be Ethernet.
State query_state(const profile::ResolvedNode& node, const inventory::Host& host, Tool* tool);

// Sets the ports that differ, card by card (one mstconfig set with every LINK_TYPE_Pn of the
// card that differs), and confirms each with a second query. A failure stops there; what was
// done before it stays in the report, every port the second query shows written included.
// When that query fails after mstconfig accepted the set, the state counts the ports as set,
// so that the reboot marker does not miss a reboot most likely owed.
Report apply_state(const State& state, Tool& tool);

// Writes the marker listing the devices that owe a reboot (atomically), or removes a stale
// one when none does. Throws EnvironmentError when it cannot (an empty path too). It sees only
// state, so it counts PortLinkType::reboot_pending(); the firmware step (set_step) also lists the
// ports its run set whose running type cannot be read, as Report::reboot_required() counts them.
// A SIGINT, SIGTERM or SIGHUP that arrives while it writes takes effect once the file is in
// place.
void update_reboot_marker(const std::string& path, const State& state);

// The documented `firmware --json` object, and the same for people.
std::string to_json(const State& state, const Report* report);
std::string to_text(const State& state, const Report* report);

// The firmware step of plan, apply and `firmware`: what to run and where to record a reboot.
struct StepOptions {
  bool skip = false;      // --no-firmware
  std::string mstconfig;  // empty: found on the clean PATH
  // mstconfig set can take several seconds on a busy adapter; a hung one must not hang a
  // kickstart forever.
  std::chrono::milliseconds timeout{60000};
  std::string reboot_marker = k_reboot_marker;
};

enum class StepStatus {
  skipped,       // --no-firmware
  not_declared,  // the profile sets no link_type for the node
  unknown,       // the next-boot values could not be read (StepOutcome::unknown says why)
  queried,       // read, nothing set (plan, dry run, `firmware` without --apply)
  set,           // the ports that differed were set and confirmed (report)
};

struct StepOutcome {
  StepStatus status = StepStatus::skipped;
  State state;                   // as queried, before any change
  std::optional<Report> report;  // status set
  std::string unknown;           // status unknown: the reason
  std::string marker;            // status set: the reboot marker written or removed
  // ok; environment when setting failed (what was set before stays, report.done);
  // reboot_required when a link type changes at the next boot.
  ErrorKind result = ErrorKind::ok;

  // Link types would change (plan --detailed-exitcode).
  bool changes() const;
};

// Reads the node's link types without setting any (plan's firmware section, apply --dry-run).
// A captured tree (sysfs_root not this machine's /sys) is queried only with options.mstconfig.
// A query failure is not thrown: status unknown with the reason.
StepOutcome query_step(const profile::ResolvedNode& node, const inventory::Host& host,
                       const std::string& sysfs_root, const StepOptions& options);

// Sets what differs in state through tool, confirms it and writes the reboot marker (even after
// a failure: what was set before it still takes effect at the next boot). SIGINT, SIGTERM and
// SIGHUP, when their action is the default, are held until then: the card being set is
// finished and confirmed, the others are left, the marker is written, and the signal then ends
// the process. A program with its own handlers keeps them and is not held.
StepOutcome set_step(const State& state, Tool& tool, const StepOptions& options);

// apply's step, run under apply's lock before any link change: queries the live host and sets
// the link types that differ. Throws Error on failures before anything was set.
StepOutcome firmware_step(const profile::ResolvedNode& node, const inventory::Host& host,
                          const StepOptions& options);

}  // namespace ibsetup::firmware
#pragma GCC visibility pop
