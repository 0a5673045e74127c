# What `cmake --install` lays out (docs/install.md), by component:
#   (runtime, "Unspecified")  bin/ttd, stripped, with a .gnu_debuglink;
#                     man pages (ttd.1, ttd-<command>.1) and bash/zsh
#                     completions generated from the CLI's own --help; docs
#   debug             lib/debug/.build-id/xx/yyyy.debug: ttd's and the Python
#                     module's debug info (gdb finds it by build id)
#   python            the ttd package in TTD_PYTHON_INSTALL_DIR (python/)
#   devel             the engine's headers (include/ttd), its static
#                     libraries, a CMake package (find_package(ttd): ttd::engine,
#                     ttd::query, ...) and a pkg-config file (ttd.pc)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- stripped executables with split debug info ----
find_program(TTD_OBJCOPY NAMES objcopy)
find_program(TTD_READELF NAMES readelf)
set(TTD_DEBUG_SPLIT_DIR ${CMAKE_BINARY_DIR}/debug-split)

# ttd_install_stripped(TARGET RELATIVE_INSTALLED_PATH COMPONENT): after the
# target is installed, strip it and link it to its debug file; the debug
# component installs that file under lib/debug/.build-id.
function(ttd_install_stripped target installed component)
  if(NOT TTD_OBJCOPY OR NOT TTD_READELF)
    message(STATUS "ttd install: objcopy/readelf not found: ${target} is installed unstripped")
    return()
  endif()
  string(CONCAT vars "set(TTD_OBJCOPY [[${TTD_OBJCOPY}]])\nset(TTD_READELF [[${TTD_READELF}]])\n"
           "set(TTD_BUILT [[$<TARGET_FILE:${target}>]])\nset(TTD_DEBUG_FILE [[${TTD_DEBUG_SPLIT_DIR}/${target}.debug]])\n")
  install(CODE "${vars}set(TTD_INSTALLED [[${installed}]])\nset(TTD_SPLIT_ACTION strip)\n\
include([[${PROJECT_SOURCE_DIR}/cmake/ttd_split_debug.cmake]])" COMPONENT ${component})
  install(CODE "${vars}set(TTD_SPLIT_ACTION install-debug)\n\
include([[${PROJECT_SOURCE_DIR}/cmake/ttd_split_debug.cmake]])" COMPONENT debug)
endfunction()

if(TARGET ttd)
  ttd_install_stripped(ttd ${CMAKE_INSTALL_BINDIR}/ttd Unspecified)
endif()
if(TARGET ttd_python)
  ttd_install_stripped(ttd_python "${TTD_PYTHON_INSTALL_DIR}/ttd/$<TARGET_FILE_NAME:ttd_python>" python)
endif()

# ---- man pages and shell completions from the CLI definitions ----
if(TARGET ttd)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    set(TTD_CLI_DOCS ${CMAKE_BINARY_DIR}/cli-docs)
    add_custom_command(OUTPUT ${TTD_CLI_DOCS}/stamp
                       COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/ttd_cli_docs.py $<TARGET_FILE:ttd>
                               ${PROJECT_VERSION} ${TTD_CLI_DOCS}
                       COMMAND ${CMAKE_COMMAND} -E touch ${TTD_CLI_DOCS}/stamp
                       DEPENDS ttd ${PROJECT_SOURCE_DIR}/cmake/ttd_cli_docs.py
                       COMMENT "Man pages and shell completions from ttd --help")
    add_custom_target(ttd_cli_docs ALL DEPENDS ${TTD_CLI_DOCS}/stamp)
    install(DIRECTORY ${TTD_CLI_DOCS}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")
    install(FILES ${TTD_CLI_DOCS}/completions/ttd.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
            RENAME ttd)
    # Debian's zsh reads vendor-completions under /usr and site-functions
    # under /usr/local: chosen by the prefix at install time.
    install(CODE "
      if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
        set(_zsh_dir vendor-completions)
      else()
        set(_zsh_dir site-functions)
      endif()
      file(INSTALL [[${TTD_CLI_DOCS}/completions/_ttd]]
           DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/\${_zsh_dir}\")")
  else()
    message(STATUS "ttd install: no python3: man pages and completions are not generated")
  endif()
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg"
        PATTERN notes EXCLUDE)

# ---- the engine for other C++ programs ----
# Every project library the query library needs, dependencies after their
# users (the order a static link wants).
set(TTD_EXPORTED "")
function(ttd_collect_libraries target)
  get_target_property(imported ${target} IMPORTED)
  get_target_property(type ${target} TYPE)
  if(imported OR NOT type MATCHES "STATIC_LIBRARY")
    return()
  endif()
  list(REMOVE_ITEM TTD_EXPORTED ${target})
  list(APPEND TTD_EXPORTED ${target})
  get_target_property(deps ${target} LINK_LIBRARIES)
  foreach(dep IN LISTS deps)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(TARGET "${dep}")
      ttd_collect_libraries(${dep})
    endif()
  endforeach()
  set(TTD_EXPORTED ${TTD_EXPORTED} PARENT_SCOPE)
endfunction()
ttd_collect_libraries(ttd_query)

set(TTD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ttd)
set(TTD_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/ttd)
set(_ttd_pc_libs "")
foreach(t IN LISTS TTD_EXPORTED)
  # The libraries name their include folder by its source path; installed,
  # it is include/ttd.
  get_target_property(inc ${t} INTERFACE_INCLUDE_DIRECTORIES)
  if(inc)
    set(fixed "")
    foreach(d IN LISTS inc)
      if(d MATCHES "^\\$<" OR NOT (d MATCHES "^${PROJECT_SOURCE_DIR}" OR d MATCHES "^${PROJECT_BINARY_DIR}"))
        list(APPEND fixed "${d}")
      else()
        list(APPEND fixed "$<BUILD_INTERFACE:${d}>")
      endif()
    endforeach()
    list(APPEND fixed "$<INSTALL_INTERFACE:${TTD_INCLUDE_DIR}>")
    list(REMOVE_DUPLICATES fixed)
    set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${fixed}")
  endif()
  string(REGEX REPLACE "^ttd_" "" short ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${short})
  string(APPEND _ttd_pc_libs " -l${t}")
endforeach()
install(TARGETS ${TTD_EXPORTED} EXPORT ttdTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
# The archives' debug info would triple the package; the code stays.
if(TTD_OBJCOPY)
  foreach(t IN LISTS TTD_EXPORTED)
    install(CODE "execute_process(COMMAND [[${TTD_OBJCOPY}]] --strip-debug
                  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${t}>\")"
            COMPONENT devel)
  endforeach()
endif()
foreach(dir state formats engine elf debuginfo)
  install(DIRECTORY ${dir}/ DESTINATION ${TTD_INCLUDE_DIR}/${dir} COMPONENT devel FILES_MATCHING PATTERN "*.h")
endforeach()
install(EXPORT ttdTargets NAMESPACE ttd:: DESTINATION ${TTD_CMAKE_DIR} COMPONENT devel)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ttdConfig.cmake.in ${CMAKE_BINARY_DIR}/ttdConfig.cmake
                              INSTALL_DESTINATION ${TTD_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ttdConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ttdConfig.cmake ${CMAKE_BINARY_DIR}/ttdConfigVersion.cmake
        DESTINATION ${TTD_CMAKE_DIR} COMPONENT devel)

# pkg-config: static libraries, so their dependencies are public.
set(TTD_PC_LIBS "${_ttd_pc_libs}")
set(TTD_PREFIX "@TTD_PREFIX@")  # replaced at install time
configure_file(${PROJECT_SOURCE_DIR}/cmake/ttd.pc.in ${CMAKE_BINARY_DIR}/ttd.pc.in @ONLY)
# The prefix is the one installed to (cmake --install --prefix), not the configured one.
install(CODE "
  file(READ [[${CMAKE_BINARY_DIR}/ttd.pc.in]] _pc)
  string(REPLACE \"@TTD_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" _pc \"\${_pc}\")
  file(WRITE [[${CMAKE_BINARY_DIR}/ttd.pc]] \"\${_pc}\")
  file(INSTALL [[${CMAKE_BINARY_DIR}/ttd.pc]] DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")"
        COMPONENT devel)
