#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>

#include "common/json_read.hpp"
#include "gtest_compat.hpp"

#include <set>
#include <sstream>

using namespace ibsetup;
using namespace ibsetup::check;

namespace {

std::string result_json(const std::string& host, const std::string& checks, bool ok = true)
{
  return R"({"host":")" + host + R"(","ok":)" + (ok ? "true" : "false") + R"(,"checks":[)" +
         checks + "]}";
}

std::string check_json(const std::string& id, const std::string& status,
                       const std::string& observed, const std::string& message)
{
  return R"({"id":")" + id + R"(","subject":"mlx5_0/1","status":")" + status +
         R"(","expected":"x","observed":")" + observed + R"(","message":")" + message + R"("})";
}

const std::string k_pass = check_json("port.state", "pass", "ACTIVE", "mlx5_0/1: state ACTIVE");

FleetInput read(const std::string& text)
{
  std::istringstream in(text);
  return read_fleet(in);
}

TEST(FleetParse, CheckJsonFieldsAndErrors)
{
  bool ok = true;
  const auto r = parse_check_json(
      result_json("cn1", check_json("port.rate", "fail", "100", "rate 100"), false), &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ("cn1", r.host);
  ASSERT_EQ(1U, r.checks.size());
  EXPECT_EQ("port.rate", r.checks[0].id);
  EXPECT_EQ(Status::fail, r.checks[0].status);
  EXPECT_EQ("100", r.checks[0].observed);
  EXPECT_EQ("mlx5_0/1", r.checks[0].subject);

  // Optional strings may be absent; id and status may not.
  EXPECT_NO_THROW(
      parse_check_json(R"({"host":"a","ok":true,"checks":[{"id":"x","status":"skip"}]})"));
  const std::pair<const char*, const char*> bad[] = {
      {"nope", "not JSON: "},
      {"[1]", "not a check result: not a JSON object"},
      {R"({"ok":true,"checks":[]})", "not a check result: 'host' is missing"},
      {R"({"host":"a","checks":[]})", "not a check result: 'ok' is missing or not true/false"},
      {R"({"host":"a","ok":true})", "not a check result: 'checks' is missing or not an array"},
      {R"({"host":"a","ok":true,"checks":[{"id":"x","status":"bad"}]})",
       "not a check result: status 'bad' is not pass, warn, fail or skip"},
      {R"({"host":"a","ok":true,"checks":[{"id":1,"status":"pass"}]})",
       "not a check result: 'id' is not a string"},
  };
  for (const auto& [text, message] : bad) {
    try {
      parse_check_json(text);
      ADD_FAILURE() << text << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(0U, std::string(e.what()).find(message)) << e.what();
    }
  }
}

TEST(FleetParse, PrefixedBareAndClushLines)
{
  const auto input =
      read("cn001: " + result_json("cn001", k_pass) + "\n" + result_json("cn002", k_pass) +
           "\r\n\n   \n" + "cn003: ssh: connect to host cn003 port 22: Connection refused\n" +
           "clush: cn003: exited with exit code 255\n" + "clush: cn004: command timeout\n" +
           "ibsetup: error: no HCA\n" + "just garbage\n" + "{\"host\": 3}\n");
  ASSERT_EQ(4U, input.hosts.size());
  EXPECT_EQ(Outcome::passed, input.hosts.at("cn001").outcome());
  EXPECT_EQ(Outcome::passed, input.hosts.at("cn002").outcome());
  // ssh could not reach it: nothing came from the host itself.
  const auto& cn003 = input.hosts.at("cn003");
  EXPECT_EQ(Outcome::no_answer, cn003.outcome());
  EXPECT_EQ("ssh: connect to host cn003 port 22: Connection refused", cn003.problem);
  EXPECT_EQ(
      (std::vector<std::string>{"cn003: ssh: connect to host cn003 port 22: Connection refused",
                                "clush: cn003: exited with exit code 255"}),
      cn003.lines);
  const auto& cn004 = input.hosts.at("cn004");
  EXPECT_EQ(Outcome::no_answer, cn004.outcome());
  EXPECT_EQ("command timeout", cn004.problem);
  // Program names are not hosts; a bare line names no host.
  EXPECT_EQ((std::vector<std::string>{"ibsetup: error: no HCA", "just garbage", "{\"host\": 3}"}),
            input.unattributed);
}

// A bare line begun like a result that is not one is some host's invalid output, though ibsetup
// cannot name the host: the fleet fails (with no expectation that host would be missed
// entirely). A host's other bare lines (its stderr under clush -N) are only listed.
TEST(FleetSummary, AnInvalidResultNamingNoHostFailsTheFleet)
{
  const auto pass = read(result_json("cn001", k_pass) + "\nibsetup: warning: a note\n");
  EXPECT_TRUE(summarize_fleet(pass, {}).ok());
  const std::string bad[] = {
      R"({"host":"cn002","ok":false,"ok":false,"checks":[]})",  // not strict JSON
      R"(  {"host":"-bad-","ok":true,"checks":[]})",            // not a host name
      // A result behind a prefix that is no host name (an IPv6 address, pdsh -w).
      "2001:db8::2: " + result_json("H", check_json("port.state", "fail", "DOWN", "down"), false),
      "clush: cn[0-999999]: command timeout",  // a fold larger than any fleet
      // pdsh's timeout of a host it names as no host name can be: the same rule as a
      // timeout that undoes a pass (classify_tool_note).
      "pdsh@mgmt01: sending signal 15 to -bad- [ssh] pid 2005",
  };
  for (const auto& line : bad) {
    const auto input = read(result_json("cn001", k_pass) + "\n" + line + "\n");
    const auto s = summarize_fleet(input, {});
    EXPECT_FALSE(s.ok()) << line;
    const auto text = fleet_to_text(s);
    EXPECT_NE(std::string::npos,
              text.find("fleet: FAILED: 1 host: 1 passed, 0 failed, 0 invalid output, 0 did not "
                        "answer, 1 invalid result naming no host\n"))
        << text;
    EXPECT_NE(std::string::npos, fleet_to_json(s).find(R"("unnamed_invalid":1)"));
    EXPECT_NE(std::string::npos,
              fleet_to_metrics(s, 0).find("\nibsetup_fleet_unnamed_invalid_lines 1\n"));
  }
}

// Two check ids (or firmware versions) that print alike as label values (each control
// character becomes U+FFFD) are one series counting both hosts; it kept the larger count, 1.
TEST(FleetMetrics, LabelsThatPrintAlikeCountEveryHost)
{
  const auto fail = [](const std::string& host, const std::string& c) {
    return host + ": " +
           result_json(host,
                       check_json("port.state" + c, "fail", "DOWN", "down") + "," +
                           check_json("hca.firmware", "pass", "20.1" + c, "fw"),
                       false) +
           "\n";
  };
  const auto s = summarize_fleet(read(fail("cn001", "\\u0001") + fail("cn002", "\\u0002")), {});
  const auto text = fleet_to_metrics(s, 0);
  EXPECT_NE(std::string::npos,
            text.find("ibsetup_fleet_check_failed_hosts{id=\"port.state\xEF\xBF\xBD\"} 2\n"))
      << text;
  EXPECT_NE(std::string::npos,
            text.find("ibsetup_fleet_firmware_hosts{version=\"20.1\xEF\xBF\xBD\"} 2\n"))
      << text;
}

// clush folds the hosts that timed out alike into one line ("clush: node[04-05]: command
// timeout", clush 1.9's ev_close). Each is a host that did not answer; the line used to name no
// host, and the fleet was "ok" without them.
TEST(FleetSummary, AClushFoldNamesEachHost)
{
  const auto input =
      read("node01: " + result_json("node01", k_pass) + "\nclush: node[04-05]: command timeout\n");
  const auto s = summarize_fleet(input, {});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ((std::vector<std::string>{"node04", "node05"}), s.no_answer);
  EXPECT_TRUE(s.unattributed.empty());
}

// clush, pdsh or ssh speaking of a host after its passing result (a re-run into the same file
// that could not reach it, or a check that hung after printing) undoes the pass: it used to
// stay "passed". The host's own later lines (ibsetup's warnings) do not.
TEST(FleetSummary, AToolLineAfterAPassUndoesIt)
{
  const std::string pass = "cn001: " + result_json("cn001", k_pass) + "\n";
  const std::string after[] = {
      "cn001: ssh: connect to host cn001 port 22: Connection refused\nclush: cn001: exited with "
      "exit code 255\n",
      "pdsh@head: cn001: command timeout\n",
      "sending signal 15 to cn001 [ssh] pid 2005\n",
  };
  for (const auto& lines : after) {
    const auto s = summarize_fleet(read(pass + lines), {"cn001"});
    EXPECT_FALSE(s.ok()) << lines;
    EXPECT_EQ(std::vector<std::string>{"cn001"}, s.no_answer) << lines;
    EXPECT_TRUE(s.passed.empty()) << lines;
  }
  // A later pass counts again (the last result counts), and the host's own lines keep a pass.
  EXPECT_TRUE(
      summarize_fleet(read(pass + "clush: cn001: command timeout\n" + pass), {"cn001"}).ok());
  EXPECT_TRUE(
      summarize_fleet(read(pass + "cn001: ibsetup: warning: profile note\n"), {"cn001"}).ok());
  // Another exit status is not "did not answer": check exits 4 on a healthy node whose
  // Slurm update failed, and the pass stands as it did (review).
  const auto exit4 = summarize_fleet(
      read(pass + "cn001: ibsetup: error: slurm: scontrol failed\nclush: cn001: exited with exit "
                  "code 4\n"),
      {"cn001"});
  EXPECT_EQ(std::vector<std::string>{"cn001"}, exit4.passed);
}

// clush -L and -b fold with a count ("clush: cn[01-02] (2): ..."); pdsh's own notes before any
// host runs name no host and fail nothing.
TEST(FleetSummary, FoldCountsAndToolNotes)
{
  const std::string pass = "cn01: " + result_json("cn01", k_pass) + "\n";
  const auto folded = summarize_fleet(
      read(pass + "clush: cn[02-03] (2): command timeout\nclush: cn04 (1): command timeout\n"), {});
  EXPECT_EQ((std::vector<std::string>{"cn02", "cn03", "cn04"}), folded.no_answer);
  EXPECT_TRUE(folded.unattributed.empty());
  const auto notes = summarize_fleet(
      read("pdsh@head: skipping insecure module \"/usr/lib/pdsh/x.so\" (check perms)\n" + pass),
      {});
  EXPECT_TRUE(notes.ok());
  EXPECT_EQ(1U, notes.unattributed.size());
}

// A host's lines are quoted with the invisible and bidirectional characters shown, as every
// other field is: JSON's quoting keeps them as data.
TEST(FleetRender, QuotedLinesShowInvisibleCharacters)
{
  const auto input = read(
      "cn1: cn\xE2\x80\x8B"
      "01 \xE2\x80\xAE"
      "kcolb\n"
      "stray \xEF\xBB\xBF\n");
  const auto text = fleet_to_text(summarize_fleet(input, {}));
  EXPECT_NE(std::string::npos, text.find("\"cn1: cn\\u200b01 \\u202ekcolb\"")) << text;
  EXPECT_NE(std::string::npos, text.find("\"stray \\ufeff\"")) << text;
}

// pdsh speaks of a host as "pdsh@NODE: HOST: ..." (NODE: where pdsh runs), as clush does as
// "clush: HOST: ...", and "sending signal N to HOST [...". What does not have those forms names
// no host.
TEST(FleetParse, PdshLinesAreAboutTheirHost)
{
  const auto input = read(
      "cn002: " + result_json("cn002", k_pass, false) + "\n" +
      "pdsh@head01: cn002: ibsetup exited with exit code 5\n" + "cn003: Segmentation fault\n" +
      "pdsh@head01: cn003: ibsetup exited with exit code 139\n" +
      "pdsh@head01: cn004: command timeout\n" + "sending signal 15 to cn004 [ibsetup] pid 2005\n" +
      "pdsh@head01: cn004: ibsetup killed by signal 15\n" + "pdsh@: cn005: command timeout\n" +
      "pdsh@head 01: cn006: x\n" + "pdsh@head01: no colon after the host\n" +
      "sending signal x to cn007 [ibsetup] pid 1\n" +
      "sending signal 15 to cn 007 [ibsetup] pid 1\n" + "sending signal 15 to cn007\n" +
      "sending signal 1 to cn007 [\n" + "sending signal 1 to cn007 [x] pid 1 more\n" +
      // A host's own line names its host, whatever it says.
      "cn003: sending signal 15 to cn009 [x] pid 1\n" + "cn003: pdsh@head01: cn009: x\n");
  ASSERT_EQ(3U, input.hosts.size());
  EXPECT_EQ(Outcome::failed, input.hosts.at("cn002").outcome());
  const auto& cn003 = input.hosts.at("cn003");
  EXPECT_EQ(Outcome::invalid, cn003.outcome());
  EXPECT_EQ("not JSON", cn003.problem);  // the host's own line beats pdsh's
  EXPECT_EQ(
      (std::vector<std::string>{
          "cn003: Segmentation fault", "pdsh@head01: cn003: ibsetup exited with exit code 139",
          "cn003: sending signal 15 to cn009 [x] pid 1", "cn003: pdsh@head01: cn009: x"}),
      cn003.lines);
  const auto& cn004 = input.hosts.at("cn004");
  EXPECT_EQ(Outcome::no_answer, cn004.outcome());
  EXPECT_EQ("command timeout", cn004.problem);
  // pdsh's line as its timeout ends the command has no prefix, but a fixed form.
  EXPECT_EQ((std::vector<std::string>{"pdsh@head01: cn004: command timeout",
                                      "sending signal 15 to cn004 [ibsetup] pid 2005",
                                      "pdsh@head01: cn004: ibsetup killed by signal 15"}),
            cn004.lines);
  EXPECT_EQ((std::vector<std::string>{
                "pdsh@: cn005: command timeout", "pdsh@head 01: cn006: x",
                "pdsh@head01: no colon after the host", "sending signal x to cn007 [ibsetup] pid 1",
                "sending signal 15 to cn 007 [ibsetup] pid 1", "sending signal 15 to cn007",
                "sending signal 1 to cn007 [", "sending signal 1 to cn007 [x] pid 1 more"}),
            input.unattributed);
}

TEST(FleetParse, HostReasonBeatsClushExitLine)
{
  const auto input = read(
      "clush: cn009: exited with exit code 3\n"
      "cn009: ibsetup: error: cluster.yaml: cannot open the profile\n"
      "cn010: {\"host\":\"cn010\",\"ok\":true}\n");
  EXPECT_EQ("not JSON", input.hosts.at("cn009").problem);
  EXPECT_EQ(Outcome::invalid, input.hosts.at("cn009").outcome());
  EXPECT_EQ("not a check result: 'checks' is missing or not an array",
            input.hosts.at("cn010").problem);
}

TEST(FleetParse, SshDiagnosticsAreNoAnswer)
{
  const auto input = read(
      "clush: cn1: exited with exit code 255\n"
      "cn1: ssh: connect to host cn1 port 22: No route to host\n"
      "cn2: Permission denied (publickey,gssapi-with-mic).\n"
      "clush: cn2: exited with exit code 255\n"
      "cn3: Host key verification failed.\n"
      "cn4: ssh: Could not resolve hostname cn4: Name or service not known\n"
      "cn4: ssh: a second complaint\n"
      "cn5: ssh: connect to host cn5 port 22: Connection timed out\n"
      "cn5: ibsetup: error: but the host did print this\n");
  for (const char* h : {"cn1", "cn2", "cn3", "cn4"}) {
    EXPECT_EQ(Outcome::no_answer, input.hosts.at(h).outcome()) << h;
  }
  // ssh's reason beats clush's exit code, whichever comes first; the first of ssh's is kept.
  EXPECT_EQ("ssh: connect to host cn1 port 22: No route to host", input.hosts.at("cn1").problem);
  EXPECT_EQ("Permission denied (publickey,gssapi-with-mic).", input.hosts.at("cn2").problem);
  EXPECT_EQ("ssh: Could not resolve hostname cn4: Name or service not known",
            input.hosts.at("cn4").problem);
  EXPECT_EQ(2U, input.hosts.at("cn1").lines.size());
  // A line of the host's own makes it invalid output, whatever ssh said.
  EXPECT_EQ(Outcome::invalid, input.hosts.at("cn5").outcome());
  EXPECT_EQ("not JSON", input.hosts.at("cn5").problem);

  const auto s = summarize_fleet(input, {});
  EXPECT_EQ((std::vector<std::string>{"cn1", "cn2", "cn3", "cn4"}), s.no_answer);
  const auto text = fleet_to_text(s);
  EXPECT_NE(text.find("did not answer (4 hosts): cn[1-4]\n"
                      "  cn1: \"clush: cn1: exited with exit code 255\"\n"
                      "  cn1: \"cn1: ssh: connect to host cn1 port 22: No route to host\"\n"),
            std::string::npos)
      << text;
}

TEST(FleetParse, EmptyLineOfAHost)
{
  // clush prints a host's empty line as "cn1: "; trimmed it is "cn1:".
  const auto input = read("cn1: \ncn2: " + result_json("cn2", k_pass) + "\ncn2: \n");
  EXPECT_TRUE(input.unattributed.empty());
  const auto& cn1 = input.hosts.at("cn1");
  EXPECT_EQ(Outcome::invalid, cn1.outcome());
  EXPECT_EQ("not JSON", cn1.problem);
  EXPECT_EQ((std::vector<std::string>{"cn1:"}), cn1.lines);
  EXPECT_EQ(Outcome::passed, input.hosts.at("cn2").outcome());
  // Program words stay no hosts, with or without text after the colon.
  const auto programs = read("ibsetup:\nclush:\n");
  EXPECT_TRUE(programs.hosts.empty());
  EXPECT_EQ((std::vector<std::string>{"ibsetup:", "clush:"}), programs.unattributed);
}

TEST(FleetParse, ClushPrefixNamesTheHost)
{
  // The name given to clush -w is the one --expect lists, even if the node calls itself else.
  const auto input = read("cn005: " + result_json("localhost", k_pass) + "\n");
  ASSERT_EQ(1U, input.hosts.count("cn005"));
  EXPECT_EQ(0U, input.hosts.count("localhost"));
}

TEST(FleetParse, DuplicateResultsLastWins)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  const auto input =
      read("cn1: " + result_json("cn1", fail, false) + "\n" + "cn1: " + result_json("cn1", k_pass) +
           "\n" + "cn1: noise after the result\n");
  const auto& r = input.hosts.at("cn1");
  EXPECT_EQ(2U, r.results);
  EXPECT_EQ(Outcome::passed, r.outcome());
  const auto s = summarize_fleet(input, {});
  EXPECT_EQ((std::vector<std::string>{"cn1"}), s.duplicated);
  EXPECT_TRUE(s.ok());
}

// Behind clush's prefix, a host's line in another host's name is its own output: it cannot
// pass a host that failed (README: with -N nothing can tell them apart). This held before the
// README said so; the test keeps it.
TEST(FleetParse, APrefixedLineInAnotherHostsNameIsThePrintersOwn)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  const auto input = read("cn2: " + result_json("cn2", fail, false) + "\n" +
                          "cn1: cn2: " + result_json("cn2", k_pass) + "\n" +
                          "cn1: " + result_json("cn1", k_pass) + "\n");
  EXPECT_EQ(Outcome::failed, input.hosts.at("cn2").outcome());
  EXPECT_EQ(1U, input.hosts.at("cn2").results);
  EXPECT_EQ(Outcome::passed, input.hosts.at("cn1").outcome());
  EXPECT_FALSE(summarize_fleet(input, {}).ok());
}

TEST(FleetSummary, GroupsFailuresByIdAndMaskedMessage)
{
  std::string text;
  for (const char* h : {"cn003", "cn007", "cn008", "cn009"}) {
    text +=
        std::string(h) + ": " +
        result_json(h, check_json("ip.peer", "fail", "", std::string(h) + ": cn064 unreachable"),
                    false) +
        "\n";
  }
  // Same id, other numbers: another kind.
  text += "cn010: " +
          result_json("cn010",
                      check_json("port.rate", "fail", "100", "rate 100, expected 200") + "," +
                          check_json("ipoib.mtu", "warn", "", "mtu 2044"),
                      false) +
          "\n";
  text +=
      "cn011: " +
      result_json("cn011", check_json("port.rate", "fail", "56", "rate 56, expected 200"), false) +
      "\n";
  text += "cn012: " + result_json("cn012", k_pass, false) + "\n";
  const auto s = summarize_fleet(read(text), {});
  ASSERT_EQ(4U, s.failures.size());
  EXPECT_EQ("ip.peer", s.failures[0].id);
  EXPECT_EQ("{host}: cn064 unreachable", s.failures[0].message);
  EXPECT_EQ((std::vector<std::string>{"cn003", "cn007", "cn008", "cn009"}), s.failures[0].hosts);
  EXPECT_EQ("(none)", s.failures[1].id);  // "ok": false and no failing check: still failed
  EXPECT_EQ("port.rate", s.failures[2].id);
  EXPECT_EQ("rate 100, expected 200", s.failures[2].message);
  EXPECT_EQ("rate 56, expected 200", s.failures[3].message);
  ASSERT_EQ(1U, s.warnings.size());
  EXPECT_EQ((std::vector<std::string>{"cn010"}), s.warnings[0].hosts);
  EXPECT_EQ(7U, s.failed.size());
  EXPECT_FALSE(s.ok());
}

TEST(FleetSummary, MaskingIsWholeWord)
{
  const auto s = summarize_fleet(
      read("cn1: " + result_json("cn1",
                                 check_json("ip.peer", "fail", "", "cn1 to cn10 via cn1.ib: lost"),
                                 false)),
      {});
  ASSERT_EQ(1U, s.failures.size());
  EXPECT_EQ("{host} to cn10 via {host}.ib: lost", s.failures[0].message);
}

TEST(FleetSummary, MaskingIsOnePassOverTheMessage)
{
  // The "{host}" put in is not searched again for the short name (it was: "{{host}}").
  const auto named_host = summarize_fleet(
      read("host.site: " + result_json("host.site",
                                       check_json("ip.peer", "fail", "", "host.site lost host"),
                                       false)),
      {});
  ASSERT_EQ(1U, named_host.failures.size());
  EXPECT_EQ("{host} lost {host}", named_host.failures[0].message);
  // The full name and the short one, each whole.
  const auto full = summarize_fleet(
      read("cn1.site: " + result_json("cn1.site",
                                      check_json("ip.peer", "fail", "", "cn1.site is cn1, cn1x"),
                                      false)),
      {});
  ASSERT_EQ(1U, full.failures.size());
  EXPECT_EQ("{host} is {host}, cn1x", full.failures[0].message);
  // 400,000 mentions in one message, each replaced. (Reading keeps 4,096 bytes of a message,
  // but a library caller may fill the input itself.)
  std::string words;
  for (int i = 0; i < 400000; ++i) {
    words += "a ";
  }
  auto input = read("a: " + result_json("a", check_json("x", "fail", "", "a"), false));
  input.hosts.at("a").report->checks.at(0).message = words;
  const auto many = summarize_fleet(input, {});
  ASSERT_EQ(1U, many.failures.size());
  EXPECT_EQ(400000U * 7, many.failures[0].message.size());
}

TEST(FleetSummary, FirmwareAndRatesCountHostsOnce)
{
  const auto fw = [](const std::string& v) {
    return check_json("hca.firmware", "pass", v, "fw") + "," +
           check_json("hca.firmware", "pass", v, "fw");
  };
  const auto input =
      read("a1: " +
           result_json("a1", fw("20.31.1014") + "," + check_json("port.rate", "pass", "200", "r")) +
           "\n" + "a2: " + result_json("a2", fw("20.31.1014")) + "\n" + "a3: " +
           result_json("a3", fw("20.28.1002") + "," + check_json("port.rate", "fail", "100", "r"),
                       false) +
           "\n");
  const auto s = summarize_fleet(input, {});
  ASSERT_EQ(2U, s.firmware.size());
  EXPECT_EQ("20.31.1014", s.firmware[0].value);
  EXPECT_EQ((std::vector<std::string>{"a1", "a2"}), s.firmware[0].hosts);
  EXPECT_EQ("20.28.1002", s.firmware[1].value);
  ASSERT_EQ(2U, s.rates.size());
  EXPECT_EQ("100", s.rates[0].value);  // equal counts: by value
  EXPECT_EQ("200", s.rates[1].value);
}

TEST(FleetSummary, ExpectedHostsThatDidNotAnswer)
{
  const auto input =
      read("cn01: " + result_json("cn01", k_pass) + "\n" + "cn02: " + result_json("cn02", k_pass) +
           "\n" + "cn99: " + result_json("cn99", k_pass) + "\n");
  const auto all = summarize_fleet(input, {});
  EXPECT_TRUE(all.ok());
  EXPECT_TRUE(all.unexpected.empty());

  const auto s = summarize_fleet(input, {"cn01", "cn02", "cn03", "cn04"});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ((std::vector<std::string>{"cn03", "cn04"}), s.no_answer);
  EXPECT_EQ((std::vector<std::string>{"cn99"}), s.unexpected);
  EXPECT_EQ((std::vector<std::string>{"cn01", "cn02", "cn99"}), s.passed);
  ASSERT_EQ(2U, s.problems.size());
  EXPECT_EQ("absent from the input", s.problems[0].problem);

  EXPECT_FALSE(summarize_fleet(FleetInput{}, {}).ok());  // nothing read is not a pass
}

// clush prints the names its groups give, often in full; the profile, Slurm and --expect name
// hosts short. A full name answers for the expected host of its short name and the other way
// round, but two hosts of one short name are two machines: neither answers for it, so that a
// failure of one cannot hide behind the other. An IPv4 address is a name of its own.
TEST(FleetSummary, FullNamesAnswerForTheirShortNameWhenUnambiguous)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  const auto input =
      read("cn01.site: " + result_json("cn01", k_pass) + "\n" +
           "cn02.site: " + result_json("cn02", fail, false) + "\n" +
           "clush: cn03.site: command timeout\n" + "10.1.0.4: " + result_json("cn04", k_pass) +
           "\n" + "gpu1.a: " + result_json("gpu1", fail, false) + "\n" + "gpu1.b: " +
           result_json("gpu1", k_pass) + "\n" + "cn05: " + result_json("cn05", k_pass) + "\n");
  ASSERT_EQ(1U, input.hosts.count("cn01.site"));  // the input keeps its names
  EXPECT_EQ(0U, input.hosts.count("cn01"));

  const auto s = summarize_fleet(input, {"cn01", "cn02", "cn03", "10", "gpu1", "cn05.site"});
  EXPECT_EQ((std::vector<std::string>{"10.1.0.4", "cn01", "cn05.site", "gpu1.b"}), s.passed);
  EXPECT_EQ((std::vector<std::string>{"cn02", "gpu1.a"}), s.failed);
  EXPECT_EQ((std::vector<std::string>{"10", "cn03", "gpu1"}), s.no_answer);
  EXPECT_EQ((std::vector<std::string>{"10.1.0.4", "gpu1.a", "gpu1.b"}), s.unexpected);
  ASSERT_EQ(3U, s.problems.size());
  EXPECT_EQ("cn03", s.problems[1].host);
  EXPECT_EQ("command timeout", s.problems[1].problem);
  EXPECT_FALSE(s.ok());
  ASSERT_EQ(1U, s.failures.size());
  EXPECT_EQ((std::vector<std::string>{"cn02", "gpu1.a"}), s.failures[0].hosts);

  // Without an expectation, every host is as the input names it.
  const auto all = summarize_fleet(input, {});
  EXPECT_EQ(7U, all.expected.size());
  EXPECT_TRUE(all.unexpected.empty());
}

// clush -N: a result names its host as the host does (cn01), clush's exit-code line as the
// group does (cn01.site). That line is the host that failed, not a second host that did not
// answer, unless it could be another machine: a short name that two hosts printed, two clush
// lines of one short name, a host that passed (clush speaks only of one that did not), or
// both names expected.
TEST(FleetSummary, ClushLineUnderTheFullNameIsTheHostThatPrintedUnderItsShortName)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  const auto input =
      read(result_json("cn01", fail, false) + "\n" + "clush: cn01.site: exited with exit code 5\n" +
           result_json("cn02", k_pass) + "\n" +
           // cn03: ssh spoke (prefixed), clush too under the full name
           "cn03: ssh: connect to host cn03 port 22: Connection refused\n" +
           "clush: cn03.site: exited with exit code 255\n" +
           // gpu1: two machines printed this short name
           result_json("gpu1.a", fail, false) + "\n" + result_json("gpu1.b", fail, false) + "\n" +
           "clush: gpu1.site: exited with exit code 5\n" +
           // gpu2: one printed, two clush lines
           result_json("gpu2", fail, false) + "\n" + "clush: gpu2.a: exited with exit code 5\n" +
           "clush: gpu2.b: command timeout\n" +
           // gpu3 passed: the timeout is another machine's
           result_json("gpu3", k_pass) + "\n" + "clush: gpu3.site: command timeout\n");

  const auto expected =
      summarize_fleet(input, {"cn01.site", "cn02.site", "cn03.site", "gpu1", "gpu2", "gpu3"});
  EXPECT_EQ((std::vector<std::string>{"cn02.site", "gpu3"}), expected.passed);
  EXPECT_EQ((std::vector<std::string>{"cn01.site", "gpu1.a", "gpu1.b", "gpu2"}), expected.failed);
  EXPECT_EQ(
      (std::vector<std::string>{"cn03.site", "gpu1", "gpu1.site", "gpu2.a", "gpu2.b", "gpu3.site"}),
      expected.no_answer);
  EXPECT_EQ(
      (std::vector<std::string>{"gpu1.a", "gpu1.b", "gpu1.site", "gpu2.a", "gpu2.b", "gpu3.site"}),
      expected.unexpected);
  ASSERT_FALSE(expected.problems.empty());
  EXPECT_EQ("cn03.site", expected.problems[0].host);  // ssh's reason, not clush's
  EXPECT_EQ("ssh: connect to host cn03 port 22: Connection refused", expected.problems[0].problem);
  // clush's line goes with the host's own, as it would under one name.
  EXPECT_EQ((std::vector<std::string>{"cn03: ssh: connect to host cn03 port 22: Connection refused",
                                      "clush: cn03.site: exited with exit code 255"}),
            expected.problems[0].lines);
  EXPECT_FALSE(expected.ok());

  // Without an expectation the line is left out all the same: cn01 is one host, not two.
  const auto all = summarize_fleet(input, {});
  EXPECT_EQ((std::vector<std::string>{"cn01", "cn02", "cn03", "gpu1.a", "gpu1.b", "gpu1.site",
                                      "gpu2", "gpu2.a", "gpu2.b", "gpu3", "gpu3.site"}),
            all.expected);
  EXPECT_TRUE(all.unexpected.empty());

  // Both names expected: two machines, and the one clush spoke of did not answer.
  const auto both = summarize_fleet(
      read(result_json("cn01", fail, false) + "\n" + "clush: cn01.site: exited with exit code 5\n"),
      {"cn01", "cn01.site"});
  EXPECT_EQ((std::vector<std::string>{"cn01"}), both.failed);
  EXPECT_EQ((std::vector<std::string>{"cn01.site"}), both.no_answer);
}

// Where clush's line could be another machine's, it stays a host of its own.
TEST(FleetSummary, ClushLineStaysAHostWhenItCouldBeAnotherMachine)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  // Prefixed: cn001.a failed, cn001.b timed out; neither name is the other's short name.
  const auto prefixed =
      read("cn001.a: " + result_json("cn001.a", fail, false) + "\n" +
           "clush: cn001.a: exited with exit code 5\n" + "clush: cn001.b: command timeout\n");
  const auto none = summarize_fleet(prefixed, {});
  EXPECT_EQ((std::vector<std::string>{"cn001.a"}), none.failed);
  EXPECT_EQ((std::vector<std::string>{"cn001.b"}), none.no_answer);
  const auto short_expected = summarize_fleet(prefixed, {"cn001"});
  EXPECT_EQ((std::vector<std::string>{"cn001", "cn001.b"}), short_expected.no_answer);
  EXPECT_EQ((std::vector<std::string>{"cn001.a", "cn001.b"}), short_expected.unexpected);

  // Two expected machines of one short name: the one clush spoke of keeps clush's words.
  const auto bare =
      read(result_json("cn001", fail, false) + "\n" + "clush: cn001.b: exited with exit code 5\n");
  const auto two = summarize_fleet(bare, {"cn001.a", "cn001.b"});
  EXPECT_EQ((std::vector<std::string>{"cn001.a", "cn001.b"}), two.no_answer);
  ASSERT_EQ(2U, two.problems.size());
  EXPECT_EQ("exited with exit code 5", two.problems[1].problem);
  EXPECT_EQ((std::vector<std::string>{"cn001"}), two.unexpected);
  // ... and the other way round: clush names the short name, two full names are expected.
  const auto short_line = summarize_fleet(
      read(result_json("cn001.a", fail, false) + "\n" + "clush: cn001: exited with exit code 5\n"),
      {"cn001.a", "cn001.b"});
  EXPECT_EQ((std::vector<std::string>{"cn001.a"}), short_line.failed);
  EXPECT_EQ((std::vector<std::string>{"cn001", "cn001.b"}), short_line.no_answer);

  // One host expected in full, clush speaks of another full name of that short name.
  const auto other = summarize_fleet(
      read(result_json("cn001", fail, false) + "\n" + "clush: cn001.other: command timeout\n"),
      {"cn001.site"});
  EXPECT_EQ((std::vector<std::string>{"cn001"}), other.failed);
  EXPECT_EQ((std::vector<std::string>{"cn001.other", "cn001.site"}), other.no_answer);
  EXPECT_EQ((std::vector<std::string>{"cn001", "cn001.other"}), other.unexpected);
}

// Two full names of one short name are two machines: cn007.a's pass is not cn007.b's.
TEST(FleetSummary, AFullNameDoesNotAnswerForAnotherFullName)
{
  const auto s =
      summarize_fleet(read("cn007.a: " + result_json("cn007", k_pass) + "\n"), {"cn007.b"});
  EXPECT_EQ((std::vector<std::string>{"cn007.a"}), s.passed);  // a host of its own
  EXPECT_EQ((std::vector<std::string>{"cn007.b"}), s.no_answer);
  EXPECT_EQ((std::vector<std::string>{"cn007.a"}), s.unexpected);
  EXPECT_FALSE(s.ok());
}

// Where it is the host's: a short expected name, a host that printed no result, a timeout
// after a failed result, a host that printed two results.
TEST(FleetSummary, ClushLineGoesWithTheHostThatSpoke)
{
  const auto fail = check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN");
  const auto input =
      read(result_json("cn01", fail, false) + "\n" + "clush: cn01.site: exited with exit code 5\n" +
           "cn04: Segmentation fault\n" + "clush: cn04.site: exited with exit code 139\n" +
           result_json("cn05", fail, false) + "\n" + "clush: cn05.site: command timeout\n" +
           result_json("cn06", k_pass) + "\n" + result_json("cn06", fail, false) + "\n" +
           "clush: cn06.site: exited with exit code 5\n");
  const auto s = summarize_fleet(input, {"cn01", "cn04", "cn05", "cn06"});
  EXPECT_EQ((std::vector<std::string>{"cn01", "cn05", "cn06"}), s.failed);
  // pdsh -N -w cn07.site, as pdsh prints it: the host up to its first dot, but in full in
  // the line of its timeout. One host, the one expected.
  const auto pdsh = summarize_fleet(
      read(result_json("cn07", fail, false) + "\n" + "pdsh@head: cn07: command timeout\n" +
           "sending signal 15 to cn07.site [ssh] pid 9\n" +
           "pdsh@head: cn07: ssh killed by signal 15\n" + "pdsh@head: cn08: command timeout\n" +
           "sending signal 15 to cn08.site [ssh] pid 10\n" +
           "sending signal 15 to 10.1.0.9 [ssh] pid 11\n"),
      {"cn07.site", "cn08.site", "10.1.0.9"});
  EXPECT_EQ((std::vector<std::string>{"cn07.site"}), pdsh.failed);
  EXPECT_EQ((std::vector<std::string>{"10.1.0.9", "cn08.site"}), pdsh.no_answer);
  EXPECT_TRUE(pdsh.unexpected.empty());
  ASSERT_EQ(2U, pdsh.problems.size());
  EXPECT_EQ((std::vector<std::string>{"pdsh@head: cn08: command timeout",
                                      "sending signal 15 to cn08.site [ssh] pid 10"}),
            pdsh.problems[1].lines);
  EXPECT_EQ((std::vector<std::string>{"cn04"}), s.invalid);
  EXPECT_TRUE(s.no_answer.empty());
  EXPECT_TRUE(s.unexpected.empty());
  EXPECT_EQ((std::vector<std::string>{"cn06"}), s.duplicated);
  ASSERT_EQ(1U, s.problems.size());
  EXPECT_EQ((std::vector<std::string>{"cn04: Segmentation fault",
                                      "clush: cn04.site: exited with exit code 139"}),
            s.problems[0].lines);
}

// A message names the host in full or short; an IPv4 address only whole, never its first
// number.
TEST(FleetSummary, MaskingFullShortAndAddressNames)
{
  const auto lost = [](const std::string& message) {
    return check_json("ip.peer", "fail", "", message);
  };
  const auto input = read(
      "cn01.site: " + result_json("cn01", lost("cn01.site to cn02: lost; cn01 retried"), false) +
      "\n" + "10.1.0.4: " + result_json("x", lost("10.1.0.4 to 10.1.0.9: lost after 10"), false) +
      "\n");
  const auto s = summarize_fleet(input, {"cn01", "10.1.0.4"});
  ASSERT_EQ(2U, s.failures.size());
  std::set<std::string> messages;
  for (const auto& g : s.failures) {
    messages.insert(g.message);
  }
  EXPECT_EQ((std::set<std::string>{"{host} to cn02: lost; {host} retried",
                                   "{host} to 10.1.0.9: lost after 10"}),
            messages);
}

TEST(FleetRender, TextAndJson)
{
  const auto input = read(
      "cn1: " + result_json("cn1", check_json("hca.firmware", "pass", "20.31.1014", "fw")) + "\n" +
      "cn2: " +
      result_json("cn2", check_json("port.state", "fail", "DOWN", "mlx5_0/1: state DOWN"), false) +
      "\n" + "cn3: oops\n" + "stray\n");
  const auto s = summarize_fleet(input, {"cn1", "cn2", "cn3", "cn4"});
  EXPECT_EQ(
      "failures (1 host):\n"
      "  1 host  cn2  port.state  mlx5_0/1: state DOWN\n"
      "invalid output (1 host):\n"
      "  cn3: not JSON\n"
      "    \"cn3: oops\"\n"
      "did not answer (1 host): cn4\n"
      "firmware (hca.firmware):\n"
      "  1 host  cn1  20.31.1014\n"
      "lines naming no host:\n"
      "  \"stray\"\n"
      "fleet: FAILED: 4 hosts: 1 passed, 1 failed, 1 invalid output, 1 did not answer\n",
      fleet_to_text(s));
  const json::Json parsed = json::parse(fleet_to_json(s));
  const json::View doc(parsed, "");
  EXPECT_FALSE(doc["ok"].as_bool());
  EXPECT_EQ(4, doc["totals"]["hosts"].as_int());
  EXPECT_EQ(1, doc["totals"]["no_answer"].as_int());
  EXPECT_EQ("cn[1-4]", doc["hosts"]["expected"].as_string());
  EXPECT_EQ("cn2", doc["failures"].items().at(0)["hosts"].as_string());
  EXPECT_EQ("invalid", doc["problems"].items().at(0)["outcome"].as_string());
  EXPECT_EQ("cn3: oops", doc["problems"].items().at(0)["lines"].items().at(0).as_string());
  EXPECT_EQ("20.31.1014", doc["firmware"].items().at(0)["version"].as_string());
}

TEST(FleetRender, InvalidUtf8StaysValidJson)
{
  const auto input = read("cn1: caf\xe9 {\n\xff\xfe stray\n");
  const auto s = summarize_fleet(input, {});
  const std::string fffd = "\xEF\xBF\xBD";
  const auto json = fleet_to_json(s);
  EXPECT_EQ(std::string::npos, json.find('\xe9'));
  EXPECT_EQ(std::string::npos, json.find('\xff'));
  const json::Json parsed = json::parse(json);
  const json::View doc(parsed, "");
  EXPECT_EQ("cn1: caf" + fffd + " {",
            doc["problems"].items().at(0)["lines"].items().at(0).as_string());
  EXPECT_EQ(fffd + fffd + " stray", doc["unattributed"].items().at(0).as_string());
  EXPECT_NE(std::string::npos, fleet_to_text(s).find("\"cn1: caf" + fffd + " {\""));
}

// Strict JSON: what another parser might read differently is not a result.
TEST(FleetParse, StrictJsonResults)
{
  const std::pair<std::string, const char*> bad[] = {
      {R"({"host":"a","ok":false,"ok":true,"checks":[]})",
       "not JSON: line 1, column 24: duplicate key ok"},
      {R"({"host":"a","ok":true,"checks":[],"n":NaN})", "not JSON: line 1, column "},
      {R"({"host":"a","ok":true,"checks":[],"n":01})", "not JSON: line 1, column "},
      {R"({"host":"a","ok":true,"checks":[],"n":+1})", "not JSON: line 1, column "},
      {R"({"host":"\ud800","ok":true,"checks":[]})", "not JSON: line 1, column "},
      {R"({"host":"a","ok":true,"checks":[],"n":)" + std::string(100, '[') + std::string(100, ']') +
           "}",
       "not JSON: line 1, column 102: arrays and objects nested deeper than 64"},
      // nlohmann stops at a NUL: the failing result after it was read as a pass.
      {std::string(R"({"host":"a","ok":true,"checks":[]})") + '\0' +
           R"({"host":"a","ok":false,"checks":[]})",
       "not JSON: line 1, column 35: a NUL byte; JSON text has none"},
  };
  for (const auto& [text, message] : bad) {
    const auto input = read("cn1: " + text + "\n");
    EXPECT_EQ(Outcome::invalid, input.hosts.at("cn1").outcome()) << text;
    EXPECT_EQ(0U, input.hosts.at("cn1").problem.find(message))
        << text << " -> " << input.hosts.at("cn1").problem;
  }
}

TEST(FleetBounds, LongLinesAreTheHostsInvalidOutput)
{
  FleetLimits limits;
  limits.max_line = 1000;
  const std::string big = "cn1: {\"host\":\"cn1\",\"x\":\"" + std::string(5000, 'y') + "\"}\n";
  std::istringstream in(big + "cn2: " + result_json("cn2", k_pass) + "\n" + std::string(3000, '{') +
                        "\n");
  const auto input = read_fleet(in, limits);
  const auto& cn1 = input.hosts.at("cn1");
  EXPECT_EQ(Outcome::invalid, cn1.outcome());
  EXPECT_EQ("a line of 5026 bytes, longer than the 1000 a result may have", cn1.problem);
  ASSERT_EQ(1U, cn1.lines.size());
  EXPECT_EQ(0U, cn1.lines[0].find("cn1: {\"host\""));
  // The quote says the line's length, not how much of it was read (1000).
  EXPECT_NE(std::string::npos, cn1.lines[0].find(" ... (5026 bytes)")) << cn1.lines[0];
  EXPECT_EQ(Outcome::passed, input.hosts.at("cn2").outcome());
  ASSERT_EQ(1U, input.unattributed.size());  // a bare line too long to tell its host
  EXPECT_EQ(std::string(200, '{') + " ... (3000 bytes)", input.unattributed[0]);
}

// A problem taken from the end of a line read in part says the problem's whole length too.
TEST(FleetBounds, AProblemFromALongLineSaysItsWholeLength)
{
  FleetLimits limits;
  limits.max_line = 1000;
  std::istringstream in("cn1: ssh: " + std::string(5000, 'x') + "\n");
  const auto input = read_fleet(in, limits);
  const auto& cn1 = input.hosts.at("cn1");
  EXPECT_EQ(Outcome::no_answer, cn1.outcome());
  EXPECT_EQ("ssh: " + std::string(195, 'x') + " ... (5005 bytes)", cn1.problem);
  ASSERT_EQ(1U, cn1.lines.size());
  EXPECT_EQ("cn1: ssh: " + std::string(190, 'x') + " ... (5010 bytes)", cn1.lines[0]);
}

TEST(FleetBounds, QuotesAreShortAndCutBetweenCharacters)
{
  const std::string euro = "\xE2\x82\xAC";
  std::string garbage;
  for (int i = 0; i < 100; ++i) {
    garbage += euro;
  }
  const auto input = read("cn1: " + garbage + "\nclush: cn2: " + garbage + "\n");
  const auto& line = input.hosts.at("cn1").lines.at(0);
  // 5 bytes of "cn1: " and 65 whole euro signs fit in 200 bytes; the 66th would not.
  EXPECT_EQ("cn1: " + garbage.substr(0, 195) + " ... (305 bytes)", line);
  EXPECT_EQ(garbage.substr(0, 198) + " ... (300 bytes)", input.hosts.at("cn2").problem);
}

// A host that sends megabytes in a check's message had them kept, grouped and printed whole
// (245 such hosts: 1.1 GB of memory and 183 MB printed).
TEST(FleetBounds, ACheckTextKeepsItsFirst4096Bytes)
{
  const auto huge =
      check_json(std::string(5000, 'i'), "fail", std::string(4096, 'o'), std::string(100000, 'm'));
  const auto input = read("cn1: " + result_json("cn1", huge, false) + "\n");
  const auto& checks = input.hosts.at("cn1").report->checks;
  ASSERT_EQ(1U, checks.size());
  EXPECT_EQ(std::string(4096, 'm') + " ... (100000 bytes)", checks[0].message);
  EXPECT_EQ(std::string(4096, 'i') + " ... (5000 bytes)", checks[0].id);
  EXPECT_EQ(std::string(4096, 'o'), checks[0].observed);  // at the bound: whole
  EXPECT_EQ("mlx5_0/1", checks[0].subject);
  EXPECT_EQ(Outcome::failed, input.hosts.at("cn1").outcome());
  EXPECT_LT(input.kept_bytes, 20000U);
}

TEST(FleetBounds, KeptBytesAreCapped)
{
  FleetLimits limits;
  limits.max_kept = 100000;
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "cn" + std::to_string(i) + ": " + result_json("x", k_pass) + "\n";
  }
  std::istringstream in(text);
  try {
    read_fleet(in, limits);
    FAIL() << "read it all";
  } catch (const InputError& e) {
    EXPECT_EQ(0U, std::string(e.what()).find("more than 100000 bytes of results and quoted "
                                             "lines to keep at line "))
        << e.what();
  }
  // A host repeating itself replaces its result: that costs nothing more.
  std::string same;
  for (int i = 0; i < 2000; ++i) {
    same += "cn1: " + result_json("cn1", k_pass) + "\n";
  }
  std::istringstream again(same);
  EXPECT_EQ(2000U, read_fleet(again, limits).hosts.at("cn1").results);
}

// A stream whose reads fail after the first lines, as a socket reset or a disk error does.
class FailingInput : public std::streambuf {
public:
  explicit FailingInput(std::string first) : m_first(std::move(first)) {}

protected:
  int_type underflow() override
  {
    if (m_given) {
      throw std::ios_base::failure("EIO");
    }
    m_given = true;
    setg(&m_first[0], &m_first[0], &m_first[0] + m_first.size());
    return traits_type::to_int_type(m_first[0]);
  }

private:
  std::string m_first;
  bool m_given = false;
};

TEST(FleetBounds, AReadErrorIsAnErrorNotASummary)
{
  FailingInput buf("cn1: " + result_json("cn1", k_pass) + "\ncn2: {\"host\"");
  std::istream in(&buf);
  try {
    read_fleet(in);
    FAIL() << "read error taken for the end of the input";
  } catch (const InputError& e) {
    EXPECT_STREQ("cannot read the input after line 1", e.what());
  }
}

TEST(FleetBounds, ChattyHostIsLinear)
{
  // One host's many lines: each line costs the same, not the number before it.
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "clush: cn1: line\n";
  }
  text += "cn1: ssh: connect to host cn1 port 22: Connection refused\n";
  const auto input = read(text);
  EXPECT_EQ("ssh: connect to host cn1 port 22: Connection refused", input.hosts.at("cn1").problem);
  EXPECT_EQ(Outcome::no_answer, input.hosts.at("cn1").outcome());
}

}  // namespace
