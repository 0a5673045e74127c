// ASCII-only lower-casing for Tenet's keywords and register names (the
// locale-dependent std::tolower is neither needed nor wanted here).
#pragma once

namespace ttd::fmt::tenet {

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

}  // namespace ttd::fmt::tenet
