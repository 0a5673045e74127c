// placeholder until the ARM tables land
#include <stdexcept>
#include "state/arch_tables.h"
namespace ttd::detail {
ArchTable build_aarch64() { throw std::logic_error("aarch64 table not implemented yet"); }
ArchTable build_arm() { throw std::logic_error("arm table not implemented yet"); }
}  // namespace ttd::detail
