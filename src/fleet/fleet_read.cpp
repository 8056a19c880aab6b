// Reading a fleet report's input: line by line, never holding more than one bounded line.
#include "fleet/fleet_lines.hpp"

#include <ibsetup/error.hpp>
#include <ibsetup/fleet.hpp>

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

namespace ibsetup::check {

namespace {

// Cuts the input into lines; of a line longer than max_line only the start is kept and the
// rest is read past, so a line of any length costs max_line bytes at most. A line longer than
// 1024 times max_line ends the reading with an InputError.
class LineReader {
public:
  LineReader(std::istream& in, size_t max_line) : m_in(in), m_max_line(max_line), m_buf(65536) {}

  // The next line without its newline: its first max_line bytes in line, its whole length in
  // length. False at the end of the input; throws InputError when reading fails.
  bool next(std::string& line, size_t& length)
  {
    line.clear();
    length = 0;
    bool any = false;
    while (m_pos < m_end || fill()) {
      any = true;
      const char* start = m_buf.data() + m_pos;
      const auto* newline = static_cast<const char*>(std::memchr(start, '\n', m_end - m_pos));
      const size_t n = newline != nullptr ? static_cast<size_t>(newline - start) : m_end - m_pos;
      line.append(start, std::min(n, m_max_line - std::min(m_max_line, line.size())));
      length += n;
      m_pos += n;
      // A longer line is read past, but not for ever: /dev/zero, or a host that never ends its
      // output, is not a report to wait for.
      if (length / 1024 > m_max_line) {
        throw InputError("line " + std::to_string(m_lines + 1) + " is longer than " +
                         std::to_string(1024 * m_max_line) +
                         " bytes and has not ended; this is not ibsetup check output");
      }
      if (newline != nullptr) {
        ++m_pos;
        break;
      }
    }
    if (any) {
      ++m_lines;
    }
    return any;
  }

  size_t lines() const { return m_lines; }

private:
  // Takes what the stream has ready, at least one byte, straight from its buffer: through
  // istream::read, the bytes before a failing read would be lost with it.
  bool fill()
  {
    m_pos = 0;
    m_end = 0;
    if (!m_in.good()) {
      return false;
    }
    auto* buf = m_in.rdbuf();
    try {
      if (std::char_traits<char>::eq_int_type(buf->sgetc(), std::char_traits<char>::eof())) {
        m_in.setstate(std::ios::eofbit);
        return false;
      }
      const auto ready = std::max<std::streamsize>(1, buf->in_avail());
      const auto room = static_cast<std::streamsize>(m_buf.size());
      m_end = static_cast<size_t>(buf->sgetn(m_buf.data(), std::min(ready, room)));
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      m_in.setstate(std::ios::badbit);
      throw InputError("cannot read the input after line " + std::to_string(m_lines));
    }
    return m_end > 0;
  }

  std::istream& m_in;
  size_t m_max_line;
  std::vector<char> m_buf;
  size_t m_pos = 0;
  size_t m_end = 0;
  size_t m_lines = 0;
};

std::string size_text(size_t bytes)
{
  return bytes % (size_t{1} << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                        : std::to_string(bytes) + " bytes";
}

}  // namespace

FleetInput read_fleet(std::istream& in)
{
  return read_fleet(in, FleetLimits());
}

FleetInput read_fleet(std::istream& in, const FleetLimits& limits)
{
  FleetInput input;
  LineReader reader(in, limits.max_line);
  try {
    std::string line;
    size_t length = 0;
    while (reader.next(line, length)) {
      add_line(input, line, length, limits);
      if (input.kept_bytes > limits.max_kept) {
        throw InputError("more than " + size_text(limits.max_kept) +
                         " of results and quoted lines to keep at line " +
                         std::to_string(reader.lines()) + " (" +
                         std::to_string(input.hosts.size()) +
                         " hosts): report on parts of the fleet, one at a time");
      }
    }
  } catch (const std::bad_alloc&) {
    input = FleetInput();  // frees what was read, so that the message can be made
    throw EnvironmentError("out of memory at line " + std::to_string(reader.lines()) +
                           " of the input");
  }
  return input;
}

}  // namespace ibsetup::check
