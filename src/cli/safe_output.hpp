// The last line of defence for the terminal: whatever a formatter forgot to escape, no raw
// control character (other than newline and tab) and no byte that is not UTF-8 leaves
// ibsetup on stdout or stderr.
#pragma once

#include <iostream>
#include <memory>
#include <streambuf>
#include <string>

namespace ibsetup::cli {

// A streambuf in front of another that passes text through util::escape_text(keep_lines):
// printable text, UTF-8, newlines and tabs unchanged, anything else escaped ("\x1b").
// Output is passed on at once; only a UTF-8 sequence split across writes is held back until
// it is complete.
class EscapingBuf : public std::streambuf {
public:
  explicit EscapingBuf(std::streambuf* target) : m_target(target) {}
  ~EscapingBuf() override;
  EscapingBuf(const EscapingBuf&) = delete;
  EscapingBuf& operator=(const EscapingBuf&) = delete;

  // Writes everything held back, an incomplete UTF-8 sequence included (as escapes).
  void finish();
  // The errno of the first write to the target that failed, 0 if none did: once a stream has
  // failed it writes nothing more, so the reason is lost unless kept here.
  int first_error() const { return m_error; }

protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

private:
  // False once the target took less than it was given (a closed pipe: EPIPE), so that the
  // stream in front sets badbit as it would without this buffer.
  bool drain(bool all);

  // Returns ok; on the first failure, keeps errno, which the stream's later writes (skipped
  // once it is bad) and the caller's flush would otherwise lose.
  bool note(bool ok);

  std::streambuf* m_target;
  std::string m_pending;
  int m_error = 0;
};

// Puts an EscapingBuf in front of std::cout and std::cerr for its lifetime.
class SafeOutput {
public:
  SafeOutput();
  ~SafeOutput();
  SafeOutput(const SafeOutput&) = delete;
  SafeOutput& operator=(const SafeOutput&) = delete;

  // Why a write to standard output failed (EscapingBuf::first_error).
  int stdout_error() const { return m_out->first_error(); }

private:
  std::streambuf* m_cout;
  std::streambuf* m_cerr;
  std::unique_ptr<EscapingBuf> m_out;
  std::unique_ptr<EscapingBuf> m_err;
};

}  // namespace ibsetup::cli
