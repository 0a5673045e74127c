// placeholder until the PowerPC table lands
#include <stdexcept>
#include "state/arch_tables.h"
namespace ttd::detail {
ArchTable build_ppc32() { throw std::logic_error("ppc32 table not implemented yet"); }
}  // namespace ttd::detail
