# TTD_COLD_COMPILE_OPTIONS: extra compile options for the code whose speed
# no test depends on, added after the build type's flags so that they win.
# scripts/test.sh passes -O0, because CI compiles from scratch on two slow
# cores (docs/testing.md): a translation unit compiles up to 1.6 times
# faster at -O0 than at -O1 there. The tests spend their time in the trace
# readers, the index, replay, the history queries and the recorder, which
# keep the build type's optimisation; "cold" is everything else:
#   tests/ and bench/ (never timed in CI),
#   the front ends (gdbstub, dap, tools/ttd), debuginfo, export, diff,
#   the Python module, elf and net.
# Empty by default: a user's build optimises everything.
set(TTD_COLD_COMPILE_OPTIONS "" CACHE STRING
    "Extra compile options for code no test needs fast (scripts/test.sh: -O0)")

set(TTD_COLD_DIRECTORIES tests bench gdbstub dap tools/ttd debuginfo engine/export engine/diff python elf net)

# Walks the directories added so far; from a cold one down, every compiled
# target gets the options.
function(ttd_add_cold_compile_options dir cold)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  if(rel IN_LIST TTD_COLD_DIRECTORIES)
    set(cold ON)
  endif()
  if(cold)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        target_compile_options(${t} PRIVATE ${TTD_COLD_COMPILE_OPTIONS})
      endif()
    endforeach()
  endif()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(s IN LISTS subdirs)
    ttd_add_cold_compile_options(${s} ${cold})
  endforeach()
endfunction()

if(TTD_COLD_COMPILE_OPTIONS)
  ttd_add_cold_compile_options(${PROJECT_SOURCE_DIR} OFF)
endif()
