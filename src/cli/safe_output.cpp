#include "cli/safe_output.hpp"

#include "common/strings.hpp"

#include <algorithm>
#include <cerrno>

namespace ibsetup::cli {

namespace {

// How many bytes at the end of s may be the start of a UTF-8 sequence still to be completed.
size_t incomplete_tail(const std::string& s)
{
  const size_t look = std::min<size_t>(3, s.size());
  for (size_t k = 1; k <= look; ++k) {
    const auto c = static_cast<unsigned char>(s[s.size() - k]);
    if ((c & 0xc0U) == 0x80U) {
      continue;  // a continuation byte: keep looking for its lead byte
    }
    size_t need = 0;
    if ((c & 0xe0U) == 0xc0U) {
      need = 2;
    } else if ((c & 0xf0U) == 0xe0U) {
      need = 3;
    } else if ((c & 0xf8U) == 0xf0U) {
      need = 4;
    }
    return need > k ? k : 0;
  }
  return 0;
}

}  // namespace

EscapingBuf::~EscapingBuf()
{
  finish();
}

bool EscapingBuf::note(bool ok)
{
  if (!ok && m_error == 0) {
    m_error = errno;
  }
  return ok;
}

bool EscapingBuf::drain(bool all)
{
  const size_t keep = all ? 0 : incomplete_tail(m_pending);
  if (m_pending.size() == keep) {
    return true;
  }
  const std::string out =
      util::escape_text(std::string_view(m_pending).substr(0, m_pending.size() - keep), true);
  const auto wrote = m_target->sputn(out.data(), static_cast<std::streamsize>(out.size()));
  const bool ok = note(wrote == static_cast<std::streamsize>(out.size()));
  m_pending.erase(0, m_pending.size() - keep);
  return ok;
}

void EscapingBuf::finish()
{
  drain(true);
  note(m_target->pubsync() == 0);
}

EscapingBuf::int_type EscapingBuf::overflow(int_type c)
{
  if (traits_type::eq_int_type(c, traits_type::eof())) {
    return traits_type::not_eof(c);
  }
  m_pending += traits_type::to_char_type(c);
  return drain(false) ? c : traits_type::eof();
}

std::streamsize EscapingBuf::xsputn(const char* s, std::streamsize n)
{
  // Passed on at once (the target buffers as before): a line shows when it did without this.
  m_pending.append(s, static_cast<size_t>(n));
  return drain(false) ? n : 0;
}

int EscapingBuf::sync()
{
  const bool ok = drain(false);
  return note(m_target->pubsync() == 0) && ok ? 0 : -1;
}

SafeOutput::SafeOutput()
    : m_cout(std::cout.rdbuf()),
      m_cerr(std::cerr.rdbuf()),
      m_out(std::make_unique<EscapingBuf>(m_cout)),
      m_err(std::make_unique<EscapingBuf>(m_cerr))
{
  std::cout.rdbuf(m_out.get());
  std::cerr.rdbuf(m_err.get());
}

SafeOutput::~SafeOutput()
{
  std::cout.flush();
  std::cerr.flush();
  m_out->finish();
  m_err->finish();
  std::cout.rdbuf(m_cout);
  std::cerr.rdbuf(m_cerr);
}

}  // namespace ibsetup::cli
