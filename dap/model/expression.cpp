#include "dap/model/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <initializer_list>
#include <string>

#include "debuginfo/value_render.h"

namespace ttd::dap {

using K = dbg::TypeDesc::Kind;

namespace {

TypedValue with_type(const dbg::TypeRef& t, uint64_t v, bool hex) {
  TypedValue r = immediate(t, v);
  r.hex = hex;
  return r;
}

// The grammar is C's, from || down to unary and postfix operators. While
// `skip_` is set (the right side of a && or || its left side decides, and
// check_expression_syntax) operands are parsed but not evaluated: names
// need not exist and nothing is read, so `p && p->next` is safe at p == 0.
class Parser {
 public:
  Parser(std::string_view s, EvalScope* scope) : s_(s), scope_(scope), skip_(scope ? 0 : 1) {}

  Result<TypedValue> parse() {
    auto v = logical_or();
    if (!v) return v;
    skip();
    if (i_ != s_.size()) {
      if (s_[i_] == '=' || (i_ + 1 < s_.size() && s_[i_ + 1] == '=' && std::strchr("+-*/%&|^", s_[i_])))
        return eval_error("assignment is not supported: a trace records what happened and cannot be changed");
      if (s_[i_] == '?') return eval_error("the ?: operator is not supported");
      return eval_error("unexpected '" + std::string(s_.substr(i_, 10)) + "'");
    }
    return v;
  }

 private:
  bool skipping() const { return skip_ > 0; }
  TypedValue placeholder() { return with_type(builtin_type("int", ptr_size()), 0, false); }
  uint8_t ptr_size() const { return scope_ ? scope_->ptr_size() : 8; }
  Result<int64_t> num(const TypedValue& v) { return skipping() ? Result<int64_t>(0) : to_int(v, *scope_); }
  bool is_unsigned(const TypedValue& v) const {
    return v.type && (v.type->kind == K::Unsigned || v.type->kind == K::Pointer || v.type->kind == K::Array ||
                      v.type->kind == K::Bool);
  }

  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(i_, tok.size()) != tok) return false;
    i_ += tok.size();
    return true;
  }
  bool peek(std::string_view tok) {
    skip();
    return s_.substr(i_, tok.size()) == tok;
  }
  // tok, but not when it begins a longer operator (& of &&, < of <<).
  bool eat_alone(std::string_view tok, std::string_view not_followed_by) {
    skip();
    if (s_.substr(i_, tok.size()) != tok) return false;
    size_t after = i_ + tok.size();
    if (after < s_.size() && not_followed_by.find(s_[after]) != std::string_view::npos) return false;
    i_ = after;
    return true;
  }
  std::string ident() {
    skip();
    size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }
  dbg::TypeRef long_type() { return builtin_type("long", ptr_size()); }
  dbg::TypeRef int_type() { return builtin_type("int", ptr_size()); }

  // A cast's type: built-in words then '*'s. Restores the position if the
  // parenthesis does not hold a type.
  std::optional<dbg::TypeRef> cast_type() {
    size_t save = i_;
    std::string name;
    for (;;) {
      size_t before = i_;
      std::string w = ident();
      if (w.empty()) break;
      std::string candidate = name.empty() ? w : name + " " + w;
      bool prefix = candidate == "unsigned" || candidate == "signed" || candidate == "long" || candidate == "unsigned long" ||
                    candidate == "long long" || candidate == "unsigned long long" || candidate == "unsigned short" ||
                    candidate == "unsigned char" || candidate == "signed char" || candidate == "unsigned int" ||
                    candidate == "short" || candidate == "long int";
      if (!builtin_type(candidate == "long int" ? "long" : candidate, ptr_size()) && !prefix) {
        i_ = before;
        break;
      }
      name = candidate == "long int" ? "long" : candidate;
    }
    dbg::TypeRef t = name.empty() ? nullptr : builtin_type(name, ptr_size());
    if (!t) {
      i_ = save;
      return std::nullopt;
    }
    while (eat("*")) t = pointer_to(t, ptr_size());
    if (!eat(")")) {
      i_ = save;
      return std::nullopt;
    }
    return t;
  }

  Result<TypedValue> primary() {
    skip();
    if (i_ >= s_.size()) return eval_error("expression ends too early");
    char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t b = i_;
      while (i_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[i_]))) ++i_;
      std::string_view num = s_.substr(b, i_ - b);
      bool hex = num.size() > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X');
      uint64_t v = 0;
      auto r = hex ? std::from_chars(num.data() + 2, num.data() + num.size(), v, 16)
                   : std::from_chars(num.data(), num.data() + num.size(), v, 10);
      if (r.ec != std::errc() || r.ptr != num.data() + num.size()) return eval_error("bad number '" + std::string(num) + "'");
      return with_type(long_type(), v, hex);
    }
    if (c == '\'') {  // 'a', '\n', '\0', '\\', '\''
      size_t b = i_;
      uint64_t v = 0;
      if (i_ + 2 < s_.size() && s_[i_ + 1] != '\\' && s_[i_ + 2] == '\'') {
        v = uint8_t(s_[i_ + 1]);
        i_ += 3;
      } else if (i_ + 3 < s_.size() && s_[i_ + 1] == '\\' && s_[i_ + 3] == '\'') {
        const char e = s_[i_ + 2];
        v = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? 0 : uint8_t(e);
        i_ += 4;
      } else {
        return eval_error("bad character constant at '" + std::string(s_.substr(b, 6)) + "'");
      }
      return with_type(builtin_type("char", ptr_size()), v, false);
    }
    if (eat("(")) {
      auto v = logical_or();
      if (!v) return v;
      if (!eat(")")) return eval_error("missing ')'");
      return v;
    }
    bool dollar = eat("$");
    std::string name = ident();
    if (name.empty()) return eval_error("unexpected '" + std::string(1, c) + "'");
    if (skipping()) return placeholder();
    if (!dollar)
      if (auto v = scope_->variable(name)) return *v;
    if (auto r = scope_->reg(name)) return *r;
    return eval_error("no variable or register named '" + name + "' here");
  }

  Result<TypedValue> postfix() {
    auto v = primary();
    for (;;) {
      if (!v) return v;
      if (eat("[")) {
        auto idx = logical_or();
        if (!idx) return idx;
        if (!eat("]")) return eval_error("missing ']'");
        auto n = num(*idx);
        if (!n) return n.error();
        if (!skipping()) v = element_of(*v, *n, *scope_);
      } else if (eat("->")) {
        std::string m = ident();
        if (m.empty()) return eval_error("expected a member name after '->'");
        if (skipping()) continue;
        auto d = dereference(*v, *scope_);
        if (!d) return d;
        v = member_of(*d, m, *scope_);
      } else if (eat(".")) {
        std::string m = ident();
        if (m.empty()) return eval_error("expected a member name after '.'");
        if (!skipping()) v = member_of(*v, m, *scope_);
      } else {
        return v;
      }
    }
  }

  // Every recursion of the grammar passes through unary(): bounding its
  // depth bounds the stack (nested parentheses, brackets, unary operators).
  Result<TypedValue> unary() {
    if (depth_ >= kMaxExpressionDepth)
      return eval_error("expression nests deeper than " + std::to_string(kMaxExpressionDepth) + " levels");
    ++depth_;
    auto v = unary_at_depth();
    --depth_;
    return v;
  }

  Result<TypedValue> unary_at_depth() {
    if (eat("*")) {
      auto v = unary();
      if (!v || skipping()) return v;
      return dereference(*v, *scope_);
    }
    if (eat("&")) {
      auto v = unary();
      if (!v || skipping()) return v;
      if (v->where != TypedValue::Where::Memory) return eval_error("cannot take the address of a value that is not in memory");
      return with_type(pointer_to(v->type, ptr_size()), v->addr, true);
    }
    if (eat("-") || eat("~") || eat("!")) {
      char op = s_[i_ - 1];
      auto v = unary();
      if (!v) return v;
      auto n = num(*v);
      if (!n) return n.error();
      uint64_t r = op == '-' ? 0 - uint64_t(*n) : op == '~' ? ~uint64_t(*n) : uint64_t(*n == 0);
      return with_type(op == '!' ? int_type() : long_type(), r, v->hex && op == '~');
    }
    if (eat("+")) return unary();
    if (eat("[")) {  // [addr]: the pointer-sized word there
      auto a = logical_or();
      if (!a) return a;
      if (!eat("]")) return eval_error("missing ']'");
      auto n = num(*a);
      if (!n) return n.error();
      TypedValue w;
      w.type = unsigned_type(ptr_size());
      w.where = TypedValue::Where::Memory;
      w.addr = uint64_t(*n);
      w.hex = true;
      return w;
    }
    if (peek("(")) {
      size_t save = i_;
      eat("(");
      if (auto t = cast_type()) {
        auto v = unary();
        if (!v) return v;
        auto n = num(*v);
        if (!n) return n.error();
        return with_type(*t, uint64_t(*n), (*t)->kind == K::Pointer);
      }
      i_ = save;
    }
    return postfix();
  }

  Result<TypedValue> multiplicative() {
    auto l = unary();
    for (;;) {
      if (!l) return l;
      char op = 0;
      if (eat_alone("*", "=")) op = '*';
      else if (eat_alone("/", "=")) op = '/';
      else if (eat_alone("%", "=")) op = '%';
      else return l;
      auto r = unary();
      if (!r) return r;
      auto a = num(*l), b = num(*r);
      if (!a) return a.error();
      if (!b) return b.error();
      if (skipping()) continue;
      if (op != '*' && *b == 0) return eval_error(op == '/' ? "division by zero" : "remainder by zero");
      uint64_t v = 0;
      if (op == '*') v = wrap_mul(*a, *b);
      else if (*b == -1) v = op == '/' ? 0 - uint64_t(*a) : 0;  // INT64_MIN / -1 wraps instead of trapping
      else v = uint64_t(op == '/' ? *a / *b : *a % *b);
      l = with_type(long_type(), v, l->hex || r->hex);
    }
  }

  Result<TypedValue> additive() {
    auto l = multiplicative();
    for (;;) {
      if (!l) return l;
      char op = 0;
      if (eat_alone("+", "=")) op = '+';
      else if (eat_alone("-", "=>")) op = '-';
      else return l;
      auto r = multiplicative();
      if (!r) return r;
      auto a = num(*l), b = num(*r);
      if (!a) return a.error();
      if (!b) return b.error();
      if (skipping()) continue;
      bool lp = l->type->kind == K::Pointer || l->type->kind == K::Array;
      if (lp) {  // pointer arithmetic scales by the element size
        dbg::TypeRef elem = l->type->target;
        int64_t scale = elem && elem->size ? int64_t(elem->size) : 1;
        uint64_t d = wrap_mul(*b, scale);
        uint64_t v = op == '+' ? uint64_t(*a) + d : uint64_t(*a) - d;
        l = with_type(pointer_to(elem, ptr_size()), v, true);
      } else {
        uint64_t v = op == '+' ? uint64_t(*a) + uint64_t(*b) : uint64_t(*a) - uint64_t(*b);
        l = with_type(long_type(), v, l->hex || r->hex);
      }
    }
  }

  Result<TypedValue> shift() {
    auto l = additive();
    for (;;) {
      if (!l) return l;
      bool left = false;
      if (eat_alone("<<", "=")) left = true;
      else if (!eat_alone(">>", "=")) return l;
      auto r = additive();
      if (!r) return r;
      auto a = num(*l), b = num(*r);
      if (!a) return a.error();
      if (!b) return b.error();
      if (skipping()) continue;
      // Shifts of 64 or more (or negative) give 0 / the sign, never UB.
      uint64_t n = uint64_t(*b), v = 0;
      if (left) v = n >= 64 ? 0 : uint64_t(*a) << n;
      else if (is_unsigned(*l)) v = n >= 64 ? 0 : uint64_t(*a) >> n;
      else v = uint64_t(n >= 64 ? (*a < 0 ? -1 : 0) : *a >> n);
      l = with_type(long_type(), v, l->hex);
    }
  }

  // Comparisons: unsigned when either side is unsigned or a pointer (as C
  // converts them), else signed. The result is an int, 0 or 1.
  Result<TypedValue> compare(Result<TypedValue> (Parser::*operand)(), std::initializer_list<std::string_view> ops) {
    auto l = (this->*operand)();
    for (;;) {
      if (!l) return l;
      std::string_view op;
      for (auto o : ops) {
        bool longer = (o == "<" && (peek("<=") || peek("<<"))) || (o == ">" && (peek(">=") || peek(">>")));
        if (!longer && peek(o)) {
          op = o;
          break;
        }
      }
      if (op.empty()) return l;
      eat(op);
      auto r = (this->*operand)();
      if (!r) return r;
      auto a = num(*l), b = num(*r);
      if (!a) return a.error();
      if (!b) return b.error();
      if (skipping()) continue;
      bool u = is_unsigned(*l) || is_unsigned(*r);
      uint64_t ua = uint64_t(*a), ub = uint64_t(*b);
      bool res = op == "==" ? ua == ub
                 : op == "!=" ? ua != ub
                 : op == "<" ? (u ? ua < ub : *a < *b)
                 : op == "<=" ? (u ? ua <= ub : *a <= *b)
                 : op == ">" ? (u ? ua > ub : *a > *b)
                             : (u ? ua >= ub : *a >= *b);
      l = with_type(int_type(), res ? 1 : 0, false);
    }
  }
  Result<TypedValue> relational() { return compare(&Parser::shift, {"<=", ">=", "<", ">"}); }
  Result<TypedValue> equality() { return compare(&Parser::relational, {"==", "!="}); }

  Result<TypedValue> bitwise(Result<TypedValue> (Parser::*operand)(), char op, std::string_view not_followed_by) {
    auto l = (this->*operand)();
    for (;;) {
      if (!l) return l;
      if (!eat_alone(std::string_view(&op, 1), not_followed_by)) return l;
      auto r = (this->*operand)();
      if (!r) return r;
      auto a = num(*l), b = num(*r);
      if (!a) return a.error();
      if (!b) return b.error();
      if (skipping()) continue;
      uint64_t v = op == '&' ? uint64_t(*a) & uint64_t(*b) : op == '|' ? uint64_t(*a) | uint64_t(*b) : uint64_t(*a) ^ uint64_t(*b);
      l = with_type(long_type(), v, l->hex || r->hex);
    }
  }
  Result<TypedValue> bit_and() { return bitwise(&Parser::equality, '&', "&="); }
  Result<TypedValue> bit_xor() { return bitwise(&Parser::bit_and, '^', "="); }
  Result<TypedValue> bit_or() { return bitwise(&Parser::bit_xor, '|', "|="); }

  // && and ||: the right side is only checked, not evaluated, when the
  // left side decides (C's short-circuit), so its errors cannot arise.
  Result<TypedValue> logical(Result<TypedValue> (Parser::*operand)(), bool is_and) {
    auto l = (this->*operand)();
    for (;;) {
      if (!l) return l;
      if (!eat(is_and ? "&&" : "||")) return l;
      auto a = num(*l);
      if (!a) return a.error();
      bool decided = !skipping() && (is_and ? *a == 0 : *a != 0);
      if (decided) ++skip_;
      auto r = (this->*operand)();
      if (decided) --skip_;
      if (!r) return r;
      if (skipping()) continue;
      bool res = !is_and;
      if (!decided) {
        auto b = num(*r);
        if (!b) return b.error();
        res = *b != 0;
      }
      l = with_type(int_type(), res ? 1 : 0, false);
    }
  }
  Result<TypedValue> logical_and() { return logical(&Parser::bit_or, true); }
  Result<TypedValue> logical_or() { return logical(&Parser::logical_and, false); }

  std::string_view s_;
  size_t i_ = 0;
  size_t depth_ = 0;
  EvalScope* scope_;
  int skip_ = 0;
};

}  // namespace

Result<TypedValue> evaluate_expression(std::string_view text, EvalScope& scope) {
  if (text.size() > kMaxExpressionChars)
    return eval_error("expression of " + std::to_string(text.size()) + " characters is longer than the " +
                      std::to_string(kMaxExpressionChars) + "-character limit");
  Parser p(text, &scope);
  return p.parse();
}

Status check_expression_syntax(std::string_view text) {
  if (text.size() > kMaxExpressionChars)
    return eval_error("expression of " + std::to_string(text.size()) + " characters is longer than the " +
                      std::to_string(kMaxExpressionChars) + "-character limit");
  Parser p(text, nullptr);
  auto v = p.parse();
  if (!v) return v.error();
  return {};
}

}  // namespace ttd::dap
