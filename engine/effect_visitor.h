// What a reader of a step's effects implements: the engine's public face
// of its decoded effects (register writes, memory accesses, mappings,
// thread starts and ends), so front ends that replay or forward effects
// (`ttd convert`, exports) need not include the step codec itself.
#pragma once
#include <cstdint>
#include <string_view>

namespace ttd {

// Receives decoded effects. Thread indexes refer to the index's thread table.
struct EffectVisitor {
  virtual ~EffectVisitor() = default;
  virtual void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) = 0;
  virtual void reg_unknown(uint32_t tidx, uint16_t reg) {}
  virtual void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) = 0;
  virtual void mem_read(uint64_t pid, uint64_t addr, uint64_t size, const uint8_t* bytes) {}
  virtual void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {}
  virtual void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {}
  virtual void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {}
  virtual void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {}
  virtual void thread_begin(uint32_t tidx) {}
  virtual void thread_end(uint32_t tidx) {}
};

}  // namespace ttd
