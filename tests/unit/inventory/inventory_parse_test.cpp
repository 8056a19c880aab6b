#include "inventory/parse.hpp"

#include <gtest/gtest.h>

using namespace ibsetup::inventory;

namespace {

TEST(InventoryParse, PortStates)
{
  EXPECT_EQ("ACTIVE", parse_port_state("4: ACTIVE")->name);
  EXPECT_EQ(4, parse_port_state("4: ACTIVE")->code);
  EXPECT_EQ("INIT", parse_port_state("2: INIT")->name);
  EXPECT_EQ("DOWN", parse_port_state("1: DOWN")->name);
  EXPECT_FALSE(parse_port_state("ACTIVE"));
  EXPECT_FALSE(parse_port_state(""));
  EXPECT_EQ("LinkUp", parse_phys_state("5: LinkUp")->name);
  EXPECT_EQ("Polling", parse_phys_state("2: Polling")->name);
  // The kernel's name for the code wins over odd text (a real prometheus fixture has this).
  EXPECT_EQ("PortConfigurationTraining", parse_phys_state("4: ACTIVE")->name);
  EXPECT_EQ("Vendor", parse_phys_state("9: Vendor")->name);
}

TEST(InventoryParse, Rates)
{
  auto r = parse_rate("200 Gb/sec (4X HDR)");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(200, r->gbps);
  EXPECT_EQ("4X", r->width);
  EXPECT_EQ("HDR", *r->speed);
  r = parse_rate("2.5 Gb/sec (1X SDR)");
  EXPECT_DOUBLE_EQ(2.5, r->gbps);
  r = parse_rate("10 Gb/sec (4X)");  // old kernels: no speed name
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->speed);
  EXPECT_FALSE(parse_rate("fast"));
  EXPECT_FALSE(parse_rate("100 Gb/sec"));
}

TEST(InventoryParse, LidsAreHex)
{
  EXPECT_EQ(932, *parse_hex_int("0x3a4"));
  EXPECT_EQ(0, *parse_hex_int("0x0"));
  EXPECT_FALSE(parse_hex_int("12"));
  EXPECT_FALSE(parse_hex_int(""));
  EXPECT_EQ(-1, *parse_decimal_int("-1"));
  EXPECT_FALSE(parse_decimal_int("0x10"));
}

TEST(InventoryParse, Guids)
{
  EXPECT_EQ("0x0c42a1030016e7e0", *parse_guid("0c42:a103:0016:e7e0"));
  EXPECT_FALSE(parse_guid("0c42:a103:0016"));
  EXPECT_EQ("0x0002c90300f9bfa1", *guid_of_gid("fe80:0000:0000:0000:0002:c903:00f9:bfa1"));
  EXPECT_EQ("0x0002c90300f9bfa1",
            *guid_of_ipoib_address("80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:f9:bf:a1"));
  EXPECT_FALSE(guid_of_ipoib_address("0c:42:a1:16:e7:e1"));
}

TEST(InventoryParse, PciAndMasks)
{
  EXPECT_DOUBLE_EQ(16.0, *parse_pci_speed("16.0 GT/s PCIe"));
  EXPECT_DOUBLE_EQ(8.0, *parse_pci_speed("8 GT/s"));
  EXPECT_DOUBLE_EQ(2.5, *parse_pci_speed("2.5 GT/s"));
  EXPECT_FALSE(parse_pci_speed("Unknown"));
  EXPECT_EQ("0xa651e848", *parse_cap_mask("0xa651e848"));
  EXPECT_EQ("0x02514868", *parse_cap_mask("0x2514868"));
  EXPECT_EQ(0x8001, *parse_pkey("0x8001"));
  EXPECT_FALSE(parse_pkey("0x10000"));
}

}  // namespace

// Issue 13: every sysfs value parser answers nullopt, never throws, on mutations of the
// kernel's formats (bytes dropped, duplicated or replaced, numbers made huge).
TEST(SysfsParsers, MutatedValuesNeverThrow)
{
  const std::vector<std::string> seeds{
      "4: ACTIVE",
      "5: LinkUp",
      "100 Gb/sec (4X EDR)",
      "2.5 Gb/sec (1X SDR)",
      "0x3a4",
      "0c42:a103:0016:e7e0",
      "fe80:0000:0000:0000:0c42:a103:0016:e7e0",
      "80:00:00:48:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:16:e7:e0",
      "16.0 GT/s PCIe",
      "0xa659e848",
      "0xffff",
      "99999999999999999999999",
      ""};
  const std::string alphabet = "0123456789abcdefxX:.() /-+GTsbecXN\n\t\xff";
  unsigned long long state = 7;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33U);
  };
  for (int run = 0; run < 20000; ++run) {
    std::string s = seeds[next() % seeds.size()];
    for (size_t edits = next() % 4; edits > 0; --edits) {
      const size_t at = s.empty() ? 0 : next() % s.size();
      switch (next() % 4) {
      case 0:
        s.erase(at, 1);
        break;
      case 1:
        s.insert(at, 1, alphabet[next() % alphabet.size()]);
        break;
      case 2:
        s.insert(at, std::string(next() % 30, '9'));
        break;
      default:
        if (!s.empty()) {
          s[at] = alphabet[next() % alphabet.size()];
        }
      }
    }
    try {
      (void)parse_port_state(s);
      (void)parse_phys_state(s);
      (void)parse_rate(s);
      (void)parse_hex_int(s);
      (void)parse_decimal_int(s);
      (void)parse_guid(s);
      (void)guid_of_gid(s);
      (void)guid_of_ipoib_address(s);
      (void)parse_pci_speed(s);
      (void)parse_cap_mask(s);
      (void)parse_pkey(s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " on '" << s << "'";
      return;
    }
  }
}
