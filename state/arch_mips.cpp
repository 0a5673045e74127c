// placeholder until the MIPS table lands
#include <stdexcept>
#include "state/arch_tables.h"
namespace ttd::detail {
ArchTable build_mips() { throw std::logic_error("mips table not implemented yet"); }
}  // namespace ttd::detail
