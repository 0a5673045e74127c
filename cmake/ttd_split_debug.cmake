# Install-time helper of cmake/TtdInstall.cmake (included by install(CODE)).
# Inputs: TTD_OBJCOPY, TTD_READELF, TTD_BUILT (the build-tree file),
# TTD_DEBUG_FILE (its debug info, kept in the build tree), TTD_SPLIT_ACTION:
#   strip          strip the installed copy TTD_INSTALLED (relative to the
#                  prefix) and point its .gnu_debuglink at the debug file
#   install-debug  install the debug file as lib/debug/.build-id/xx/yyyy.debug,
#                  where gdb looks for it by build id
# Failures stop the install with the file and the tool's message.

function(ttd_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "ttd install: `${cmd}` failed (${rc}): ${err}")
  endif()
endfunction()

# The debug file is remade whenever the build-tree file is newer.
if(NOT EXISTS "${TTD_DEBUG_FILE}" OR "${TTD_BUILT}" IS_NEWER_THAN "${TTD_DEBUG_FILE}")
  get_filename_component(_dir "${TTD_DEBUG_FILE}" DIRECTORY)
  file(MAKE_DIRECTORY "${_dir}")
  # A name of its own: two installs of the same build may run at once (ctest).
  string(RANDOM LENGTH 8 _tag)
  ttd_run("${TTD_OBJCOPY}" --only-keep-debug "${TTD_BUILT}" "${TTD_DEBUG_FILE}.${_tag}.tmp")
  file(RENAME "${TTD_DEBUG_FILE}.${_tag}.tmp" "${TTD_DEBUG_FILE}")
endif()

if(TTD_SPLIT_ACTION STREQUAL "strip")
  set(_file "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${TTD_INSTALLED}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "ttd install: ${_file} was not installed")
  endif()
  execute_process(COMMAND "${TTD_READELF}" -S "${_file}" OUTPUT_VARIABLE _sections RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ttd install: ${_file} is not an ELF file readelf can read")
  endif()
  if(_sections MATCHES "\\.gnu_debuglink")
    return()  # stripped by an earlier install of the same build
  endif()
  message(STATUS "Stripping: ${_file} (debug info: the debug component)")
  ttd_run("${TTD_OBJCOPY}" --strip-debug --strip-unneeded "--add-gnu-debuglink=${TTD_DEBUG_FILE}" "${_file}")
elseif(TTD_SPLIT_ACTION STREQUAL "install-debug")
  execute_process(COMMAND "${TTD_READELF}" -n "${TTD_BUILT}" OUTPUT_VARIABLE _notes)
  if(NOT _notes MATCHES "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)")
    message(FATAL_ERROR "ttd install: ${TTD_BUILT} has no build id (link with -Wl,--build-id)")
  endif()
  file(INSTALL "${TTD_DEBUG_FILE}" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/debug/.build-id/${CMAKE_MATCH_1}"
       RENAME "${CMAKE_MATCH_2}.debug")
endif()
