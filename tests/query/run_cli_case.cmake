# Runs ${TTD} ${ARGS} (a ;-list) and checks its exit code and output:
# stderr for failures, stdout for successes must match EXPECT_REGEX.
execute_process(COMMAND ${TTD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "ttd ${ARGS}: exit ${rc}, expected ${EXPECT_EXIT}\nstdout: ${out}\nstderr: ${err}")
endif()
if(EXPECT_EXIT STREQUAL "0")
  set(text "${out}")
else()
  set(text "${err}")
endif()
if(NOT text MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "ttd ${ARGS}: output does not match '${EXPECT_REGEX}'\nstdout: ${out}\nstderr: ${err}")
endif()
