// Instrumentation maps read with libelf against llvm-xray extract (and nm
// where llvm-xray-14 cannot read the map: it rejects typed-event sleds).
#include <doctest/doctest.h>

#include <sstream>

#include "formats/xray/instr_map.h"
#include "reference.h"
#include "test_support.h"

using namespace ttd::fmt::xray;
using namespace xray_test;

TEST_CASE("function ids, addresses and names equal llvm-xray extract") {
  for (const char* bin : {"bin/fdr_threads", "bin/fdr_single", "generated/bin/basic_threads_clang16"}) {
    INFO(bin);
    auto m = InstrMap::load(data(bin));
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().to_string()));
    CHECK(m->arch() == ttd::ArchId::X86_64);
    std::istringstream in(read_text(data(std::string(bin) + ".instr_map.yaml")));
    std::string line;
    size_t sleds = 0;
    while (std::getline(in, line)) {
      if (line.rfind("- {", 0) != 0) continue;
      auto field = [&](const std::string& key) {
        size_t at = line.find(key + ": ");
        REQUIRE(at != std::string::npos);
        at += key.size() + 2;
        size_t end = line.find_first_of(",}", at);
        std::string v = line.substr(at, end - at);
        if (!v.empty() && v.front() == '\'') v = v.substr(1, v.size() - 2);
        return v;
      };
      uint32_t id = uint32_t(std::stoul(field("id")));
      uint64_t fn = std::stoull(field("function"), nullptr, 16);
      uint64_t sled = std::stoull(field("address"), nullptr, 16);
      CHECK(m->function_address(id) == fn);
      CHECK(m->function_name(id) == field("function-name"));
      REQUIRE(sleds < m->sleds().size());
      CHECK(m->sleds()[sleds].address == sled);
      CHECK(m->sleds()[sleds].function == fn);
      ++sleds;
    }
    CHECK(sleds == m->sleds().size());
    CHECK(sleds > 0);
  }
}

TEST_CASE("maps with typed-event sleds: every function is where nm puts its symbol") {
  for (const char* bin : {"generated/bin/fdr_rich_clang16", "generated/bin/fdr_rich_clang14"}) {
    INFO(bin);
    auto m = InstrMap::load(data(bin));
    REQUIRE(m.ok());
    std::map<uint64_t, std::string> nm;
    std::istringstream in(read_text(data(std::string(bin) + ".nm.txt")));
    std::string line;
    while (std::getline(in, line)) nm[std::stoull(line.substr(0, 16), nullptr, 16)] = line.substr(19);
    REQUIRE(m->function_count() >= 9);
    bool typed_sled = false;
    for (const auto& s : m->sleds()) typed_sled |= s.kind == 5;
    CHECK(typed_sled);
    for (uint32_t id = 1; id <= m->function_count(); ++id) {
      auto a = m->function_address(id);
      REQUIRE(a);
      REQUIRE(nm.count(*a));
      CHECK(nm[*a] == m->function_name(id));
    }
    CHECK_FALSE(m->function_address(0));
    CHECK_FALSE(m->function_address(uint32_t(m->function_count() + 1)));
    CHECK(m->function_name(9999).empty());
  }
}

TEST_CASE("files without a map") {
  auto not_elf = InstrMap::load(data("PROVENANCE.md"));
  REQUIRE_FALSE(not_elf.ok());
  CHECK(not_elf.error().where == data("PROVENANCE.md"));
  auto self = InstrMap::load("/proc/self/exe");
  REQUIRE_FALSE(self.ok());
  CHECK(self.error().message.find("no xray_instr_map") != std::string::npos);
  auto missing = InstrMap::load(data("no-such-binary"));
  CHECK_FALSE(missing.ok());
}
