#include "state/error.h"

namespace ttd {

std::string Error::to_string() const {
  std::string s = where;
  if (offset) {
    if (offset_is_line)
      s += ":" + std::to_string(*offset);
    else
      s += ": at byte " + std::to_string(*offset);
  }
  if (!s.empty()) s += ": ";
  return s + message;
}

Error make_error(std::string where, std::string message) {
  return Error{std::move(message), std::move(where), std::nullopt, false};
}
Error make_error_at(std::string where, uint64_t offset, std::string message) {
  return Error{std::move(message), std::move(where), offset, false};
}
Error make_error_line(std::string where, uint64_t line, std::string message) {
  return Error{std::move(message), std::move(where), line, true};
}

}  // namespace ttd
