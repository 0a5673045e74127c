#include "formats/umtrace/trace_xml.h"

#include <cctype>

#include "formats/umtrace/mapped_file.h"

namespace ttd::fmt::umtrace {

namespace {

constexpr size_t kMaxXmlBytes = size_t(16) << 20;  // metadata only; anything larger is not this file
constexpr size_t kMaxDepth = 64;

class XmlParser {
 public:
  XmlParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  Result<TraceXml> parse() {
    TraceXml out;
    std::vector<std::string> stack;
    std::string text;
    bool root_seen = false;
    while (pos_ < s_.size()) {
      if (s_[pos_] != '<') {
        size_t lt = s_.find('<', pos_);
        if (lt == std::string_view::npos) lt = s_.size();
        if (stack.empty()) {
          for (size_t i = pos_; i < lt; ++i)
            if (!std::isspace(uint8_t(s_[i]))) return error("text outside the root element");
        } else if (auto s = decode(s_.substr(pos_, lt - pos_), text); !s) {
          return s.error();
        }
        pos_ = lt;
        continue;
      }
      if (starts("<?")) { if (auto s = skip_to("?>"); !s) return s.error(); continue; }
      if (starts("<!--")) { if (auto s = skip_to("-->"); !s) return s.error(); continue; }
      if (starts("<![CDATA[")) {
        pos_ += 9;
        size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos) return error("unterminated CDATA section");
        text.append(s_.substr(pos_, end - pos_));
        pos_ = end + 3;
        continue;
      }
      if (starts("<!")) { if (auto s = skip_to(">"); !s) return s.error(); continue; }
      if (starts("</")) {
        pos_ += 2;
        std::string name = read_name();
        skip_space();
        if (!starts(">")) return error("malformed closing tag");
        ++pos_;
        if (stack.empty() || stack.back() != name)
          return error("closing tag </" + name + "> does not match <" + (stack.empty() ? "" : stack.back()) + ">");
        if (leaf_) add(out, stack, trim(text));
        text.clear();
        stack.pop_back();
        leaf_ = false;
        continue;
      }
      ++pos_;
      std::string name = read_name();
      if (name.empty()) return error("malformed tag");
      if (stack.empty()) {
        if (root_seen) return error("a second root element <" + name + ">");
        if (name != "Data") return error("root element is <" + name + ">, expected <Data> (UMTracer trace.xml)");
        root_seen = true;
      }
      if (stack.size() >= kMaxDepth) return error("elements nested too deeply");
      stack.push_back(name);
      text.clear();
      leaf_ = true;
      bool self_closing = false;
      for (;;) {
        skip_space();
        if (pos_ >= s_.size()) return error("unterminated tag <" + name + ">");
        if (starts("/>")) { pos_ += 2; self_closing = true; break; }
        if (s_[pos_] == '>') { ++pos_; break; }
        std::string attr = read_name();
        skip_space();
        if (attr.empty() || !starts("=")) return error("malformed attribute in <" + name + ">");
        ++pos_;
        skip_space();
        if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) return error("attribute value without quotes");
        char q = s_[pos_++];
        size_t end = s_.find(q, pos_);
        if (end == std::string_view::npos) return error("unterminated attribute value");
        std::string value;
        if (auto s = decode(s_.substr(pos_, end - pos_), value); !s) return s.error();
        pos_ = end + 1;
        auto path = join(stack);
        if (path) out.values.emplace_back(*path + "@" + attr, value);
      }
      if (self_closing) {
        add(out, stack, "");
        stack.pop_back();
        leaf_ = false;
      }
    }
    if (!stack.empty()) return error("unterminated element <" + stack.back() + ">");
    if (!root_seen) return error("no root element");
    return out;
  }

 private:
  // Leaves below Data/TraceMetaData are reported relative to it; other
  // parts of the file keep their full path.
  static std::optional<std::string> join(const std::vector<std::string>& stack) {
    std::string p;
    size_t from = (stack.size() >= 2 && stack[1] == "TraceMetaData") ? 2 : 0;
    if (from == 2 && stack.size() == 2) return std::nullopt;
    for (size_t i = from; i < stack.size(); ++i) p += (p.empty() ? "" : "/") + stack[i];
    return p;
  }
  void add(TraceXml& out, const std::vector<std::string>& stack, std::string value) {
    if (auto p = join(stack)) out.values.emplace_back(*p, std::move(value));
  }
  static std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(uint8_t(s[b]))) ++b;
    while (e > b && std::isspace(uint8_t(s[e - 1]))) --e;
    return s.substr(b, e - b);
  }
  bool starts(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(uint8_t(s_[pos_]))) ++pos_;
  }
  std::string read_name() {
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(uint8_t(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '-' ||
                                s_[pos_] == '.' || s_[pos_] == ':'))
      ++pos_;
    return std::string(s_.substr(b, pos_ - b));
  }
  Status skip_to(std::string_view end) {
    size_t e = s_.find(end, pos_);
    if (e == std::string_view::npos) return error("unterminated markup");
    pos_ = e + end.size();
    return {};
  }
  Status decode(std::string_view in, std::string& out) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != '&') {
        out += in[i];
        continue;
      }
      size_t semi = in.find(';', i);
      if (semi == std::string_view::npos || semi - i > 12) return error("malformed entity reference");
      std::string_view ent = in.substr(i + 1, semi - i - 1);
      if (ent == "amp") out += '&';
      else if (ent == "lt") out += '<';
      else if (ent == "gt") out += '>';
      else if (ent == "quot") out += '"';
      else if (ent == "apos") out += '\'';
      else if (ent.size() > 1 && ent[0] == '#') {
        uint32_t cp = 0;
        bool hex = ent[1] == 'x' || ent[1] == 'X';
        std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) return error("malformed character reference");
        for (char c : digits) {
          int d = std::isdigit(uint8_t(c)) ? c - '0' : (hex && std::isxdigit(uint8_t(c)) ? (std::tolower(c) - 'a' + 10) : -1);
          if (d < 0 || cp > 0x10ffff) return error("malformed character reference");
          cp = cp * (hex ? 16 : 10) + uint32_t(d);
        }
        if (cp > 0x10ffff) return error("character reference out of range");
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) out += char(0xc0 | (cp >> 6)), out += char(0x80 | (cp & 0x3f));
        else if (cp < 0x10000)
          out += char(0xe0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
        else
          out += char(0xf0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3f)),
              out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
      } else {
        return error("unknown entity &" + std::string(ent) + ";");
      }
      i = semi;
    }
    return {};
  }
  Error error(const std::string& message) const {
    uint64_t line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    return make_error_line(path_, line, message);
  }

  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
  // The innermost open element has had no child element yet: opening a
  // child clears it, so only leaves report their text.
  bool leaf_ = false;
};

}  // namespace

std::optional<std::string> TraceXml::get(std::string_view path) const {
  for (const auto& [k, v] : values)
    if (k == path) return v;
  return std::nullopt;
}

Result<TraceXml> parse_trace_xml(std::string_view text, const std::string& path) {
  return XmlParser(text, path).parse();
}

Result<TraceXml> read_trace_xml(const std::string& path) {
  auto f = MappedFile::open(path);
  if (!f) return f.error();
  if ((*f)->size() > kMaxXmlBytes)
    return make_error(path, "trace.xml is " + std::to_string((*f)->size()) + " bytes; metadata this large is not a trace.xml");
  std::string_view text(reinterpret_cast<const char*>((*f)->data()), (*f)->size());
  return parse_trace_xml(text, path);
}

}  // namespace ttd::fmt::umtrace
