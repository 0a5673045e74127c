// The expression evaluator on hostile input: arithmetic that would be
// undefined behaviour in C (INT64_MIN / -1, signed overflow), division by
// zero, and nesting or length meant to exhaust the stack. Each must give a
// defined value or an error, never a trap.
#include <doctest/doctest.h>

#include <string>

#include "dap/model/expression.h"

using namespace ttd;
using namespace ttd::dap;

namespace {

// No variables or registers; memory reads as known zeros.
struct EmptyScope : EvalScope {
  std::optional<TypedValue> variable(const std::string&) override { return std::nullopt; }
  std::optional<TypedValue> reg(const std::string&) override { return std::nullopt; }
  void read(uint64_t, uint8_t* dst, uint8_t* known, size_t len) override {
    for (size_t i = 0; i < len; ++i) dst[i] = 0, known[i] = 1;
  }
  uint8_t ptr_size() const override { return 8; }
};

uint64_t value_of(const std::string& text) {
  EmptyScope scope;
  auto v = evaluate_expression(text, scope);
  INFO(text, ": ", v ? std::string() : v.error().to_string());
  REQUIRE(v.ok());
  uint64_t r = 0;
  for (size_t i = 0; i < v->bytes.size() && i < 8; ++i) r |= uint64_t(v->bytes[i]) << (8 * i);
  return r;
}

std::string error_of(const std::string& text) {
  EmptyScope scope;
  auto v = evaluate_expression(text, scope);
  INFO(text);
  REQUIRE_FALSE(v.ok());
  return v.error().to_string();
}

}  // namespace

TEST_CASE("expression: INT64_MIN / -1 and % -1 wrap instead of trapping") {
  CHECK(value_of("0x8000000000000000/-1") == 0x8000000000000000ull);
  CHECK(value_of("0x8000000000000000%-1") == 0);
  CHECK(value_of("(0-0x7fffffffffffffff-1)/-1") == 0x8000000000000000ull);
  CHECK(value_of("-7/2") == uint64_t(-3));
  CHECK(value_of("-7%2") == uint64_t(-1));
}

TEST_CASE("expression: division and remainder by zero are errors") {
  CHECK(error_of("1/0").find("division by zero") != std::string::npos);
  CHECK(error_of("1%0").find("remainder by zero") != std::string::npos);
  CHECK(error_of("0x8000000000000000/(1-1)").find("by zero") != std::string::npos);
}

TEST_CASE("expression: signed overflow wraps modulo 2^64") {
  CHECK(value_of("0x7fffffffffffffff+1") == 0x8000000000000000ull);
  CHECK(value_of("0x8000000000000000-1") == 0x7fffffffffffffffull);
  CHECK(value_of("0x7fffffffffffffff*2") == 0xfffffffffffffffeull);
  CHECK(value_of("0x8000000000000000*-1") == 0x8000000000000000ull);
  CHECK(value_of("-0x8000000000000000") == 0x8000000000000000ull);
  CHECK(value_of("~0x8000000000000000") == 0x7fffffffffffffffull);
  // Pointer arithmetic scales by the element size, wrapping too.
  CHECK(value_of("(long *)0 + 0x4000000000000000") == 0);
  CHECK(value_of("(long *)0x10 - 0x7fffffffffffffff") == 0x18);
}

TEST_CASE("expression: nesting is bounded (no stack overflow)") {
  std::string deep = std::string(4000, '(') + "1" + std::string(4000, ')');
  CHECK(error_of(deep).find("limit") != std::string::npos);  // also longer than the length limit
  std::string parens = std::string(300, '(') + "1" + std::string(300, ')');
  CHECK(error_of(parens).find("deeper than 256") != std::string::npos);
  CHECK(error_of(std::string(3000, '-') + "1").find("deeper than 256") != std::string::npos);
  CHECK(error_of(std::string(3000, '*') + "x").find("deeper than 256") != std::string::npos);
  CHECK(error_of(std::string(1000, '[') + "0" + std::string(1000, ']')).find("deeper than 256") != std::string::npos);
  CHECK(error_of(std::string(20000, '-') + "1").find("4096-character limit") != std::string::npos);
  // Just inside the bound still works.
  CHECK(value_of(std::string(200, '(') + "5" + std::string(200, ')')) == 5);
  CHECK(value_of(std::string(200, '-') + "5") == 5);
}

TEST_CASE("expression: comparisons, logic and bit operators (issue 19)") {
  CHECK(value_of("1 == 1") == 1);
  CHECK(value_of("1 != 1") == 0);
  CHECK(value_of("-1 < 0") == 1);                  // signed
  CHECK(value_of("(unsigned long)-1 < 0") == 0);   // unsigned when one side is
  CHECK(value_of("2 <= 2 && 3 >= 4") == 0);
  CHECK(value_of("2 > 1 || 1/0") == 1);            // short-circuit: 1/0 not evaluated
  CHECK(value_of("0 && *(long *)0 / 0") == 0);
  CHECK(value_of("!0 + !5") == 1);
  CHECK(value_of("(6 & 3) | (1 << 4) ^ 1") == 19);
  CHECK(value_of("-8 >> 1") == uint64_t(-4));
  CHECK(value_of("1 << 64") == 0);                 // no undefined shift
  CHECK(value_of("'A' == 65") == 1);
  CHECK(value_of("(long *)0x10 == (long *)16") == 1);
  CHECK(error_of("1 || 1/0 == ").find("ends too early") != std::string::npos);  // skipped, still parsed
  CHECK(error_of("1 = 1").find("assignment is not supported") != std::string::npos);
  CHECK(error_of("1 += 1").find("assignment is not supported") != std::string::npos);
  CHECK(error_of("1 ? 2 : 3").find("?:") != std::string::npos);
}

TEST_CASE("expression: syntax check without a scope") {
  CHECK(check_expression_syntax("quantity > 15 && name[0] != 'c'").ok());
  CHECK(check_expression_syntax("p->next->value == *q || a.b[3] < (int)x").ok());
  CHECK_FALSE(check_expression_syntax("quantity ==").ok());
  CHECK_FALSE(check_expression_syntax("a )").ok());
  CHECK_FALSE(check_expression_syntax("a = 1").ok());
  CHECK_FALSE(check_expression_syntax(std::string(300, '(') + "1" + std::string(300, ')')).ok());
}
