# `cpack -G DEB` in the build folder: one ttd_<version>_<arch>.deb with the
# runtime (stripped ttd, man pages, completions, docs), the Python package
# and the engine for C++ (headers, static libraries, CMake and pkg-config
# files), installed under /usr. Its Depends come from dpkg-shlibdeps (the
# shared libraries ttd and the module really link), the packages of the
# libraries ttd opens with dlopen (Unicorn, Capstone), plus python3 for the
# module. The debug component (lib/debug) is left out: gdb finds it by
# build id when installed from the build with `--component debug`.
set(CPACK_PACKAGE_NAME ttd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "ttd")
set(CPACK_PACKAGE_CONTACT "ttd maintainers <ttd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "time-travel debugger backend: replay execution traces forwards and backwards")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "ttd reads execution traces (usercorn UCIR, LLVM XRay, REVEN, Tenet, PowerPC TT6) or records its own, "
    "reconstructs registers and memory at any position, and serves them to gdb and lldb (GDB remote protocol, "
    "reverse execution), to IDEs (Debug Adapter Protocol) and to scripts (ttd query, the ttd Python module).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # ttd_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The module is built for one interpreter's ABI (python3.X).
# (python/ sets TTD_PYTHON_INSTALL_DIR, lib/python3.X/..., when it builds the module.)
if(TTD_PYTHON_INSTALL_DIR MATCHES "python([0-9]+)\\.([0-9]+)")
  math(EXPR _ttd_py_next "${CMAKE_MATCH_2} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}), python3 (<< ${CMAKE_MATCH_1}.${_ttd_py_next})")
endif()
# Unicorn, Capstone, SQLite and libdw are opened with dlopen on first use
# (state/unicorn_library.h), so dpkg-shlibdeps does not see them in ttd's
# NEEDED list: the packages that hold their sonames are named here.
find_program(TTD_DPKG_QUERY dpkg-query)
foreach(_ttd_soname IN ITEMS ${TTD_UNICORN_SONAME} ${TTD_CAPSTONE_SONAME} ${TTD_SQLITE_SONAME} ${TTD_DW_SONAME})
  set(_ttd_owner "")
  if(TTD_DPKG_QUERY)
    execute_process(COMMAND ${TTD_DPKG_QUERY} -S "*/${_ttd_soname}" OUTPUT_VARIABLE _ttd_owner ERROR_QUIET)
  endif()
  if(_ttd_owner MATCHES "^([^:, ]+)")
    if(CPACK_DEBIAN_PACKAGE_DEPENDS)
      string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", ")
    endif()
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
  else()
    message(STATUS "ttd package: no Debian package holds ${_ttd_soname}; the .deb will not depend on it")
  endif()
endforeach()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gdb, lldb-16, python3-matplotlib, python3-numpy")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/ttd/ttd")
# Every component but debug (Unspecified is the runtime's).
set(CPACK_INSTALL_CMAKE_PROJECTS
    "${CMAKE_BINARY_DIR};${PROJECT_NAME};Unspecified;/"
    "${CMAKE_BINARY_DIR};${PROJECT_NAME};python;/"
    "${CMAKE_BINARY_DIR};${PROJECT_NAME};devel;/")
include(CPack)
