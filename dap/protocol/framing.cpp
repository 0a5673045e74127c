#include "dap/protocol/framing.h"

#include <cctype>
#include <charconv>

namespace ttd::dap {

namespace {
constexpr size_t kMaxHeaderBytes = 8192;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}
}  // namespace

bool MessageReader::fill() {
  if (eof_) return false;
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  char tmp[65536];
  long n = ch_.read(tmp, sizeof tmp);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  buf_.append(tmp, size_t(n));
  return true;
}

Frame MessageReader::next() {
  // Find the end of the header block (tolerating bare \n line ends).
  size_t header_end = std::string::npos, body_start = 0;
  for (;;) {
    std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
    size_t crlf = rest.find("\r\n\r\n"), lf = rest.find("\n\n");
    if (crlf != std::string::npos && (lf == std::string::npos || crlf <= lf)) {
      header_end = pos_ + crlf;
      body_start = header_end + 4;
      break;
    }
    if (lf != std::string::npos) {
      header_end = pos_ + lf;
      body_start = header_end + 2;
      break;
    }
    if (rest.size() > kMaxHeaderBytes) {
      pos_ = buf_.size();
      return Frame{Frame::Kind::BadHeader, {}, "header longer than 8192 bytes without an empty line; discarded"};
    }
    if (!fill()) {
      bool junk = !trim(std::string_view(buf_.data() + pos_, buf_.size() - pos_)).empty();
      pos_ = buf_.size();
      if (junk) return Frame{Frame::Kind::BadHeader, {}, "input ended inside a message header"};
      return Frame{Frame::Kind::End, {}, {}};
    }
  }
  std::string_view header(buf_.data() + pos_, header_end - pos_);
  long long length = -1;
  std::string bad;
  while (!header.empty()) {
    size_t nl = header.find('\n');
    std::string_view line = trim(header.substr(0, nl));
    header = nl == std::string::npos ? std::string_view() : header.substr(nl + 1);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      bad = "header line without ':' (" + std::string(line.substr(0, 40)) + ")";
      continue;
    }
    if (!iequals(trim(line.substr(0, colon)), "Content-Length")) continue;  // other fields are allowed
    std::string_view v = trim(line.substr(colon + 1));
    long long n = -1;
    auto r = std::from_chars(v.data(), v.data() + v.size(), n);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < 0) {
      bad = "Content-Length is not a number: '" + std::string(v.substr(0, 40)) + "'";
      n = -1;
    }
    length = n;
  }
  pos_ = body_start;
  if (length < 0) return Frame{Frame::Kind::BadHeader, {}, bad.empty() ? "header without Content-Length" : bad};
  if (size_t(length) > kMaxMessageBytes) {
    // Skip the body so the next message can still be read.
    size_t skip = size_t(length);
    while (skip > 0) {
      size_t have = buf_.size() - pos_;
      size_t take = std::min(have, skip);
      pos_ += take;
      skip -= take;
      if (skip > 0 && !fill()) break;
    }
    return Frame{Frame::Kind::BadHeader, {}, "message of " + std::to_string(length) + " bytes is larger than the 64 MiB limit; skipped"};
  }
  while (buf_.size() - pos_ < size_t(length))
    if (!fill()) {
      pos_ = buf_.size();
      return Frame{Frame::Kind::BadHeader, {}, "input ended inside a message body"};
    }
  Frame f{Frame::Kind::Message, buf_.substr(pos_, size_t(length)), {}};
  pos_ += size_t(length);
  return f;
}

std::string frame_message(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace ttd::dap
