#include "state/byte_order.h"
#include "debuginfo/dwarf_expr.h"

#include <dwarf.h>

#include <string>

namespace ttd::dbg {

namespace {

Error unsupported(uint8_t atom) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", atom);
  return make_error("DWARF expression", std::string("operation ") + buf + " is not supported");
}

struct Machine {
  const ExprContext& ctx;
  std::vector<uint64_t> stack;
  int depth = 0;  // recursion through DW_OP_fbreg

  Result<uint64_t> reg(int regno) {
    if (!ctx.regs) return make_error("DWARF expression", "registers are not available here");
    auto v = ctx.regs(regno);
    if (!v) return make_error("DWARF expression", "register " + std::to_string(regno) + " is unknown here");
    return *v;
  }
  Result<uint64_t> load(uint64_t addr, size_t size) {
    if (!ctx.mem) return make_error("DWARF expression", "memory is not available here");
    uint8_t buf[8] = {};
    if (size > 8 || !ctx.mem(addr, buf, size)) return make_error("DWARF expression", "memory the location depends on is unknown");
    return load_le(buf, size);  // little-endian targets
  }
  Result<uint64_t> frame_base() {
    if (!ctx.frame_base || ctx.frame_base->empty()) return make_error("DWARF expression", "the function has no frame base");
    if (depth > 2) return make_error("DWARF expression", "frame base refers to itself");
    Machine inner{ctx, {}, depth + 1};
    auto loc = inner.run(*ctx.frame_base);
    if (!loc) return loc.error();
    if (loc->kind == ExprLocation::Kind::Register) return reg(int(loc->value));
    return loc->value;
  }
  bool pop(uint64_t& v) {
    if (stack.empty()) return false;
    v = stack.back();
    stack.pop_back();
    return true;
  }

  Result<ExprLocation> run(const DwarfExpr& expr) {
    ExprLocation out;
    bool is_value = false;
    for (size_t i = 0; i < expr.size(); ++i) {
      const DwarfOp& op = expr[i];
      uint8_t a = op.atom;
      uint64_t x = 0, y = 0;
      if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
        stack.push_back(a - DW_OP_lit0);
      } else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
        if (expr.size() > 1 && !(i + 1 < expr.size() && expr[i + 1].atom == DW_OP_piece))
          return make_error("DWARF expression", "register location inside a larger expression");
        return ExprLocation{ExprLocation::Kind::Register, uint64_t(a - DW_OP_reg0), {}};
      } else if (a == DW_OP_regx) {
        return ExprLocation{ExprLocation::Kind::Register, op.number, {}};
      } else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
        auto r = reg(a - DW_OP_breg0);
        if (!r) return r.error();
        stack.push_back(*r + op.number);
      } else if (a == DW_OP_bregx) {
        auto r = reg(int(op.number));
        if (!r) return r.error();
        stack.push_back(*r + op.number2);
      } else {
        switch (a) {
          case DW_OP_addr: case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
          case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
          case DW_OP_constu: case DW_OP_consts:
            stack.push_back(op.number);
            break;
          case DW_OP_fbreg: {
            auto fb = frame_base();
            if (!fb) return fb.error();
            stack.push_back(*fb + op.number);
            break;
          }
          case DW_OP_call_frame_cfa:
            if (!ctx.cfa) return make_error("DWARF expression", "the frame's CFA is unknown here");
            stack.push_back(*ctx.cfa);
            break;
          case DW_OP_deref: case DW_OP_deref_size: {
            if (!pop(x)) return make_error("DWARF expression", "stack underflow");
            auto v = load(x, a == DW_OP_deref ? ctx.ptr_size : size_t(op.number));
            if (!v) return v.error();
            stack.push_back(*v);
            break;
          }
          case DW_OP_dup:
            if (stack.empty()) return make_error("DWARF expression", "stack underflow");
            stack.push_back(stack.back());
            break;
          case DW_OP_drop:
            if (!pop(x)) return make_error("DWARF expression", "stack underflow");
            break;
          case DW_OP_over:
            if (stack.size() < 2) return make_error("DWARF expression", "stack underflow");
            stack.push_back(stack[stack.size() - 2]);
            break;
          case DW_OP_swap:
            if (stack.size() < 2) return make_error("DWARF expression", "stack underflow");
            std::swap(stack[stack.size() - 1], stack[stack.size() - 2]);
            break;
          case DW_OP_plus_uconst:
            if (!pop(x)) return make_error("DWARF expression", "stack underflow");
            stack.push_back(x + op.number);
            break;
          case DW_OP_neg:
            if (!pop(x)) return make_error("DWARF expression", "stack underflow");
            stack.push_back(uint64_t(-int64_t(x)));
            break;
          case DW_OP_not:
            if (!pop(x)) return make_error("DWARF expression", "stack underflow");
            stack.push_back(~x);
            break;
          case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
          case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
            if (!pop(y) || !pop(x)) return make_error("DWARF expression", "stack underflow");
            switch (a) {
              case DW_OP_plus: stack.push_back(x + y); break;
              case DW_OP_minus: stack.push_back(x - y); break;
              case DW_OP_mul: stack.push_back(x * y); break;
              case DW_OP_and: stack.push_back(x & y); break;
              case DW_OP_or: stack.push_back(x | y); break;
              case DW_OP_xor: stack.push_back(x ^ y); break;
              case DW_OP_shl: stack.push_back(y < 64 ? x << y : 0); break;
              case DW_OP_shr: stack.push_back(y < 64 ? x >> y : 0); break;
              default: stack.push_back(y < 64 ? uint64_t(int64_t(x) >> y) : 0); break;
            }
            break;
          case DW_OP_stack_value:
            is_value = true;
            break;
          case DW_OP_implicit_value:
            return make_error("DWARF expression", "implicit values are read by the caller");
          case DW_OP_piece:
            // A single leading piece describes the whole small variable.
            i = expr.size();
            break;
          case DW_OP_nop:
            break;
          default:
            return unsupported(a);
        }
      }
    }
    if (stack.empty()) return make_error("DWARF expression", "empty expression (optimized out)");
    out.kind = is_value ? ExprLocation::Kind::Value : ExprLocation::Kind::Memory;
    out.value = stack.back();
    return out;
  }
};

}  // namespace

Result<ExprLocation> evaluate_location(const DwarfExpr& expr, const ExprContext& ctx) {
  Machine m{ctx, {}, 0};
  return m.run(expr);
}

}  // namespace ttd::dbg
