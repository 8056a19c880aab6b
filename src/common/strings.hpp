// Small string helpers shared across the library.
#pragma once
#pragma GCC visibility push(default)  // for the CLI: src/libibsetup.map.in says why

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsetup::util {

std::string_view trim(std::string_view s);
std::string to_lower(std::string_view s);

// A PCI function's address, "dddd:bb:dd.f" in hex with f 0-7 ("bb:dd.f" has domain 0000), in
// lower case; nullopt for anything else. One rule for the profile's pci:, sysfs device links
// and the device mstconfig names.
std::optional<std::string> pci_address(std::string_view text);

// Parses a whole string as an unsigned integer, decimal or 0x-prefixed hex.
std::optional<uint64_t> parse_unsigned(std::string_view s);

// Parses a whole string as a decimal number (integer or fraction, no exponent).
std::optional<double> parse_decimal(std::string_view s);

// "0x%04x"
std::string hex16(uint16_t value);

// Formats a number without trailing zeros: 2.5 -> "2.5", 200 -> "200"; integers in full
// (2147483647, not 2.14748e+09).
std::string format_number(double value);

// Levenshtein edit distance, used for did-you-mean suggestions.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to word when it is close enough to be a likely typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "a, b, c" with separator ", ": the items in order, the separator between each two.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// "SIGINT", "SIGTERM" or "SIGHUP" (the signals that stop ibsetup's runs), else "a signal".
const char* signal_name(int sig);

// "a, b or c"
std::string join_alternatives(const std::vector<std::string>& items, const char* last = " or ");

// The length of the well-formed UTF-8 sequence at s[i] (1 for ASCII; no overlong forms,
// surrogates or code points past U+10FFFF), or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i);

// The code point at s[i] when utf8_length(s, i) is n > 0.
uint32_t utf8_decode(std::string_view s, size_t i, size_t n);

// Whether code point cp is a C0 control, DEL or a C1 control (U+0080-U+009F): what a
// terminal acts on instead of showing.
bool is_control(uint32_t cp);

// Text from outside ibsetup (a profile, sysfs, netlink, mstconfig, a host's report) made safe
// to show on a terminal as one field: every control character and every byte that is not part
// of well-formed UTF-8 is shown escaped, so the text can neither move the cursor, change
// colours, ring the bell nor start a line of its own. "\n", "\r" and "\t" stand for newline,
// carriage return and tab, "\x1b" for other C0 controls, DEL and invalid bytes, "\u0085" for
// C1 controls, and "\u202e" for the Unicode line and paragraph separators, bidirectional
// controls (which reorder how a line reads) and invisible characters such as U+200B (which make
// two names look alike). Printable text, other UTF-8 included, is returned
// unchanged. With keep_lines (for whole, already formatted output), newlines and tabs are kept,
// and so are the separators and bidirectional controls (its fields were escaped on their own).
std::string escape_text(std::string_view s, bool keep_lines = false);

// The offending character in printable form for a message: "U+0060 '`'" for a printable one,
// "U+001B" for a control, "byte 0xff" for a byte that is not UTF-8.
std::string describe_char(std::string_view s, size_t i);

// s when at most max bytes long; else its first max bytes or fewer (never cutting a UTF-8
// sequence) and " ... (N bytes)", so that quoting input in a message stays short.
std::string excerpt(std::string_view s, size_t max);
// The same for s, the start of a text of `whole` bytes that was not read to its end: the count
// says whole, and the mark is there even when s itself fits.
std::string excerpt(std::string_view s, size_t max, size_t whole);

}  // namespace ibsetup::util
#pragma GCC visibility pop
