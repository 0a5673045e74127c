#include "dap/protocol/framing.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ttd::dap {

namespace {
constexpr std::string_view kContentLength = "Content-Length";

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

// Printable excerpt of hostile text for a message.
std::string excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return out;
}

// Where the header block starting at `from` ends: {end of the block,
// start of the body}, or {npos, 0} when it has not ended yet.
std::pair<size_t, size_t> header_end(std::string_view buf, size_t from) {
  std::string_view rest = buf.substr(from);
  size_t crlf = rest.find("\r\n\r\n"), lf = rest.find("\n\n");
  if (crlf != std::string::npos && (lf == std::string::npos || crlf <= lf)) return {from + crlf, from + crlf + 4};
  if (lf != std::string::npos) return {from + lf, from + lf + 2};
  return {std::string::npos, 0};
}
}  // namespace

bool MessageReader::fill() {
  if (eof_) return false;
  // Keep what may still be needed: the current frame, and the last body
  // (which reject_last_body() may rescan).
  size_t keep = std::min(pos_, body_pos_);
  if (keep > 0 && keep >= buf_.size() / 2) {
    buf_.erase(0, keep);
    dropped_ += keep;
    pos_ -= keep;
    if (body_pos_ != std::string::npos) body_pos_ -= keep;
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

Frame MessageReader::bad(uint64_t at, std::string why) {
  resync_ = true;
  Frame f;
  f.kind = Frame::Kind::BadHeader;
  f.offset = at;
  f.reason = "malformed frame at byte " + std::to_string(at) + ": " + why + "; skipping to the next Content-Length header";
  return f;
}

size_t MessageReader::find_header_start(size_t from) const {
  for (size_t i = from; i + kContentLength.size() <= buf_.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(buf_[i])) == 'c' &&
        iequals(std::string_view(buf_).substr(i, kContentLength.size()), kContentLength))
      return i;
  return std::string::npos;
}

bool MessageReader::resynchronise() {
  for (;;) {
    size_t at = find_header_start(pos_);
    if (at != std::string::npos) {
      pos_ = at;
      resync_ = false;
      return true;
    }
    // Keep a tail that may be the start of a split "Content-Length".
    size_t tail = kContentLength.size() - 1;
    if (buf_.size() - pos_ > tail) pos_ = buf_.size() - tail;
    if (!fill()) {
      pos_ = buf_.size();
      return false;
    }
  }
}

void MessageReader::reject_last_body() {
  if (body_pos_ == std::string::npos) return;
  pos_ = body_pos_;
  body_pos_ = std::string::npos;
  resync_ = true;
}

Frame MessageReader::next() {
  body_pos_ = std::string::npos;
  if (resync_ && !resynchronise()) return Frame{Frame::Kind::End, {}, {}, dropped_ + pos_};
  // Find the end of the header block (tolerating bare \n line ends).
  std::pair<size_t, size_t> end;
  for (;;) {
    size_t window = std::min(buf_.size(), pos_ + kMaxHeaderBytes + 4);
    end = header_end(std::string_view(buf_).substr(0, window), pos_);
    if (end.first != std::string::npos) break;
    uint64_t at = dropped_ + pos_;
    if (buf_.size() - pos_ > kMaxHeaderBytes + 4) {
      ++pos_;  // rescan from just after the start: progress is guaranteed
      return bad(at, "header longer than " + std::to_string(kMaxHeaderBytes) + " bytes without an empty line");
    }
    if (!fill()) {
      bool junk = !trim(std::string_view(buf_).substr(pos_)).empty();
      pos_ = buf_.size();
      if (junk) return bad(at, "input ended inside a message header");
      return Frame{Frame::Kind::End, {}, {}, at};
    }
  }
  const size_t start = pos_;
  const uint64_t at = dropped_ + start;
  std::string_view header(buf_.data() + start, end.first - start);
  long long length = -1;
  std::string problem;
  while (!header.empty() && problem.empty()) {
    size_t nl = header.find('\n');
    std::string_view raw = header.substr(0, nl);
    header = nl == std::string::npos ? std::string_view() : header.substr(nl + 1);
    if (raw.size() > kMaxHeaderLineBytes) {
      problem = "header line longer than " + std::to_string(kMaxHeaderLineBytes) + " bytes";
      break;
    }
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      problem = "header line without ':' (" + excerpt(line) + ")";
      break;
    }
    if (!iequals(trim(line.substr(0, colon)), kContentLength)) continue;  // other fields are allowed
    std::string_view v = trim(line.substr(colon + 1));
    long long n = -1;
    auto r = std::from_chars(v.data(), v.data() + v.size(), n);
    bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) problem = "Content-Length is not a number: '" + excerpt(v) + "' (digits only)";
    else if (r.ec != std::errc() || size_t(n) > kMaxMessageBytes)
      problem = "Content-Length " + excerpt(v) + " is larger than the " + std::to_string(kMaxMessageBytes >> 20) + " MiB limit";
    else if (length >= 0 && n != length) problem = "two different Content-Length fields";
    else length = n;
  }
  if (problem.empty() && length < 0) problem = "header without Content-Length";
  if (!problem.empty()) {
    pos_ = start + 1;
    return bad(at, problem);
  }
  // Offsets from here are relative to pos_ (= the frame's start): fill()
  // may move the buffer's contents.
  pos_ = start;
  const size_t body = end.second - start;
  size_t scan_from = body;                  // where to look for an embedded header next
  size_t embedded = std::string::npos;      // a "Content-Length" inside the partial body
  while (buf_.size() - pos_ - body < size_t(length)) {
    // The body is not complete. If the next header has already arrived
    // inside it and nothing more comes, the Content-Length was a lie (the
    // client waits for an answer): say so instead of waiting for ever.
    if (embedded == std::string::npos) {
      size_t e = find_header_start(pos_ + scan_from);
      if (e != std::string::npos) embedded = e - pos_;
      else scan_from = std::max(scan_from, buf_.size() - pos_ - std::min(buf_.size() - pos_, kContentLength.size() - 1));
    }
    bool complete_header = false;
    if (embedded != std::string::npos) {
      size_t window = std::min(buf_.size(), pos_ + embedded + kMaxHeaderBytes + 4);
      complete_header = header_end(std::string_view(buf_).substr(0, window), pos_ + embedded).first != std::string::npos;
    }
    bool stalled = complete_header && !ch_.readable_within(kShortBodyStallMs);
    if (stalled || !fill()) {
      size_t have = buf_.size() - pos_ - body;
      pos_ += body;
      return bad(at, "body shorter than its Content-Length " + std::to_string(length) + " (" + std::to_string(have) +
                         (stalled ? " bytes, then the next header; the client is waiting)" : " bytes, then the input ended)"));
    }
  }
  Frame f{Frame::Kind::Message, buf_.substr(pos_ + body, size_t(length)), {}, at};
  body_pos_ = pos_ + body;
  pos_ += body + size_t(length);
  return f;
}

std::string frame_message(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace ttd::dap
