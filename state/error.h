// Errors as values. An Error names what went wrong and where: the file (or
// argument), the byte offset or line, and the record when one applies.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ttd {

struct Error {
  std::string message;            // what is wrong, in words a user can act on
  std::string where;              // file path, argument name, or packet
  std::optional<uint64_t> offset; // byte offset (or line number, see offset_is_line)
  bool offset_is_line = false;

  // "file: at byte 123: message" / "file:45: message" / "where: message"
  std::string to_string() const;
};

Error make_error(std::string where, std::string message);
Error make_error_at(std::string where, uint64_t offset, std::string message);
Error make_error_line(std::string where, uint64_t line, std::string message);

// A minimal expected<T, Error>: holds a value or an Error.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error e) : e_(std::move(e)) {}
  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *e_; }

 private:
  std::optional<Error> e_;
};

using Status = Result<void>;

}  // namespace ttd
